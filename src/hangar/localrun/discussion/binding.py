"""From the confirmed card to the issue and, when the work goes on here, the run (LR-087..LR-092).

:class:`Binder` is the card's ``create``: it makes sure the plan turn the card showed is saved
(idempotent), asks the hub to create the issue from it (``POST /api/discussions/{id}/issue``:
the description is that plan exactly, its digest must match what the user confirmed, and the
discussion becomes the issue's source) and, for *continue in this CLI*, binds the run: it
creates the local run (idempotent by the discussion id, so a retried card gets the same run),
links it to the discussion and switches the tracker's sink, the usage and the heartbeat to it
(LR-064, LR-090). The child's environment is never touched and nothing is sent to it
(LR-065, LR-066). *Hand to an agent* assigns the agent member (the hub checks it is one,
LR-091); *only create* makes the issue alone (the caller ends the CLI, LR-092). Any failure
is a :class:`~hangar.errors.HangarError` the card shows while keeping every field (LR-093).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hangar.errors import HangarError
from hangar.localrun.discussion.beat import Beat
from hangar.localrun.discussion.hub_api import PLAN_KIND, DiscussionApi, turn_body
from hangar.localrun.discussion.plans import plan_digest
from hangar.localrun.discussion.recorder import SavedText
from hangar.localrun.discussion.targets import SplitSink, SwitchableSink
from hangar.localrun.reporter import RunReporter, UsageReporter
from hangar.localrun.spool import Spool
from hangar.localrun.terminal.issue_draft import CreatedIssue, ExecutionMode, IssueDraft
from hangar.model.run_messages import MessageType, RunMessage

HEARTBEAT_SECONDS = 30.0


@dataclass
class BoundRun:
    run_id: str
    issue_key: str
    reporter: RunReporter
    usage: UsageReporter
    heartbeat: Beat


@dataclass
class Binder:
    api: DiscussionApi
    discussion_id: str
    sink: SwitchableSink
    run_spool: Spool
    cli_name: str
    work_dir: Path
    comments: str = "thread"
    on_bound: Callable[[BoundRun], None] | None = None
    heartbeat_seconds: float = HEARTBEAT_SECONDS
    plan: SavedText | None = None
    """The plan the open card shows (set by whoever opens the card)."""
    issue: CreatedIssue | None = None
    issue_id: str = ""
    mode: ExecutionMode | None = None
    bound: BoundRun | None = None

    def create(self, draft: IssueDraft) -> CreatedIssue:
        """The card's creator (see the module docstring)."""
        plan = self.plan
        if plan is None or plan.content != draft.plan:
            raise HangarError("the card's plan is not a saved plan of this discussion")
        self._ensure_saved(plan)
        body: dict[str, Any] = {
            k: v for k, v in draft.to_api().items() if k != "description" and v not in ([], None)
        }
        body.update(
            planDigest=plan_digest(plan.content),
            planSourceKey=plan.source_key,
            mode=draft.mode.value,
        )
        issue = self.api.create_issue(self.discussion_id, body)
        key = str(issue["key"])
        created = CreatedIssue(key, str(issue["title"]), f"{self.api.server_url}/issues/{key}")
        if draft.mode is ExecutionMode.CONTINUE:
            self.bind_run(key)
        self.issue, self.issue_id, self.mode = created, str(issue["id"]), draft.mode
        return created

    def _ensure_saved(self, plan: SavedText) -> None:
        kind: MessageType = "text" if plan.role == "plan" else "final"
        extra = {"kind": PLAN_KIND} if plan.role == "plan" else {}
        message = RunMessage(kind, plan.source, plan.source_key, plan.content, input=extra)
        body = turn_body(message.to_json())
        if body is not None:
            self.api.add_turn(self.discussion_id, body)

    def bind_run(self, issue_key: str) -> BoundRun:
        """Create (or find) the run of this discussion and move the events to it."""
        if self.bound is not None:
            return self.bound
        runs = self.api.runs
        run = runs.create_run(
            issue_key,
            {
                "cliName": self.cli_name,
                "workDir": str(self.work_dir),
                "commentsMode": self.comments,
                "source": "hangar-discuss",
                "sourceKey": self.discussion_id,  # one run per discussion, however often asked
            },
        )
        run_id = str(run["id"])
        self.api.link(self.discussion_id, {"issueKey": issue_key, "runId": run_id})
        reporter = RunReporter(runs, run_id, self.run_spool)
        usage = UsageReporter(runs, run_id, self.run_spool)
        self.sink.switch(SplitSink(reporter, usage))
        beat = Beat(lambda: runs.patch_run(run_id, {}), self.heartbeat_seconds, "run")
        self.bound = BoundRun(run_id, issue_key, reporter, usage, beat)
        if self.on_bound is not None:
            self.on_bound(self.bound)
        return self.bound
