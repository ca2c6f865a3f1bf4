"""The binding ``hangar discuss`` makes once the user confirms the card, as a test stand-in
(the discussion command is not part of this package): the issue from the saved plan, the run,
the reporters switched — the adapter only learns the three ids."""

from __future__ import annotations

from pathlib import Path

from hangar.hub_client import HubClient
from hangar.localrun.hub_api import HttpRunApi
from hangar.localrun.plugins.handoff import (
    HandoffBinding,
    HandoffRequest,
    SplitTarget,
    SwitchableTarget,
)
from hangar.localrun.reporter import RunReporter, UsageReporter
from hangar.localrun.spool import Spool
from hangar.testing.plugin_kit_harness import Recorder


class HubBinder:
    """Binds a handoff on a real hub with the user's token (see the module docstring)."""

    def __init__(self, url: str, token: str, discussion: Recorder, target: SwitchableTarget,
                 spool: Path, title: str = "Retry the upload") -> None:  # fmt: skip
        self.client = HubClient(url, token)
        self.api = HttpRunApi(self.client)
        self.discussion, self.target, self.spool = discussion, target, Spool(spool)
        self.title = title
        self.requests: list[HandoffRequest] = []
        self.reporters: list[RunReporter | UsageReporter] = []

    def bind(self, request: HandoffRequest) -> HandoffBinding | None:
        self.requests.append(request)
        plan = next(m for m in self.discussion.messages if m.source_key == request.plan_source_key)
        issue = self.client.post("/api/issues", {"title": self.title, "description": plan.content})
        body = {"cliName": "planner", "sourceKey": f"discussion:{request.handoff_id}"}
        run = self.api.create_run(str(issue["key"]), body)
        reporter = RunReporter(self.api, str(run["id"]), self.spool, wait_when_full=True)
        usage = UsageReporter(self.api, str(run["id"]), self.spool)
        self.reporters += [reporter, usage]
        self.target.switch(SplitTarget(reporter, usage))
        return HandoffBinding(str(issue["id"]), str(issue["key"]), str(run["id"]))

    def close(self) -> None:
        for reporter in self.reporters:
            reporter.close()
        self.client.close()
