"""Claude's plan hook in a discussion: the temporary settings, and the answers the real hidden
hook command gets from a real hook server (LR-210, LR-212..LR-215)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hangar.localrun.discussion.targets import SwitchableSink
from hangar.localrun.hub_api import InMemoryRunApi
from hangar.localrun.providers.base import HandoffResult, PlanHandoff
from hangar.localrun.providers.claude import ClaudeProvider, HookServer
from hangar.localrun.providers.claude_events import ClaudeTranscriptTracker
from hangar.localrun.providers.claude_plan import (
    PLAN_TOOL,
    discussion_settings,
    plan_hook,
)
from hangar.localrun.reporter import RunReporter
from hangar.localrun.spool import Spool

PLAN = "# Cache the index\n\n1. Persist the turn table.\n"


class Handoffs:
    """The discussion's side of the hook, answering with a fixed result and recording."""

    def __init__(self, result: HandoffResult, sink: SwitchableSink) -> None:
        self.result = result
        self.asked: list[PlanHandoff] = []
        self.ended = 0
        self._sink = sink

    @property
    def sink(self) -> SwitchableSink:
        return self._sink

    def session_started(self, provider_session_id: str) -> None:
        return None

    def plan_proposed(self, plan: str, source: str, source_key: str) -> None:
        return None

    def native_handoff(self, handoff: PlanHandoff) -> HandoffResult:
        self.asked.append(handoff)
        return self.result

    def end_provider(self) -> None:
        self.ended += 1


def test_the_settings_add_only_the_exit_plan_mode_hook() -> None:
    """LR-210, LR-214: SessionStart (as in a run) plus one PostToolUse hook for ExitPlanMode;
    no PreToolUse hook; and a discussion appends no issue context (there is none)."""
    settings = discussion_settings(1234, "secret")
    assert set(settings["hooks"]) == {"SessionStart", "PostToolUse"}
    (entry,) = settings["hooks"]["PostToolUse"]
    assert entry["matcher"] == PLAN_TOOL
    assert "__claude-plan-hook" in entry["hooks"][0]["command"]
    assert ClaudeProvider.resume_session_id(["claude", "-r", "abc"], Path(), {}) == "abc"


def _hook(
    payload: dict[str, object], result: HandoffResult, tmp_path: Path
) -> tuple[subprocess.CompletedProcess[str], Handoffs]:
    api = InMemoryRunApi()
    reporter = RunReporter(api, "run", Spool(tmp_path / "spool"))
    hooks = Handoffs(result, SwitchableSink(reporter))  # type: ignore[arg-type]
    tracker = ClaudeTranscriptTracker(reporter, reporter)  # type: ignore[arg-type]
    path, handler = plan_hook(hooks)  # type: ignore[arg-type]
    server = HookServer(tracker, {}, tmp_path, plan_path=path, on_plan=handler).start()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "hangar", "__claude-plan-hook", "--port", str(server.port),
             "--token", server.token],
            input=json.dumps(payload), capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    finally:
        server.stop()
        reporter.close(1)
    return done, hooks


def test_bound_the_hook_says_nothing_and_claude_goes_on(tmp_path: Path) -> None:
    """LR-211, LR-212, LR-215: the raw plan (Claude 2.1.332 reports it in
    ``tool_response.plan``) is handed over; once bound the hook prints nothing — no issue
    text, nothing for Claude to read — and exits 0."""
    payload = {
        "hook_event_name": "PostToolUse",
        "tool_name": PLAN_TOOL,
        "tool_input": {},
        "tool_response": {"plan": PLAN, "filePath": "/x/plan.md"},
        "session_id": "s-1",
        "tool_use_id": "toolu_1",
    }
    done, hooks = _hook(payload, HandoffResult.BOUND, tmp_path)
    assert (done.returncode, done.stdout) == (0, "")
    assert [h.plan for h in hooks.asked] == [PLAN]
    assert hooks.asked[0].source_key == "claude:session:s-1:plan:toolu_1"
    assert hooks.ended == 0


def test_cancelled_the_hook_blocks_and_claude_is_ended(tmp_path: Path) -> None:
    """LR-213, LR-215: cancelled, Claude is ended and the hook's answer blocks the action,
    carrying only a reason — never the plan or any issue text."""
    payload = {
        "tool_name": PLAN_TOOL,
        "tool_input": {"plan": PLAN},
        "session_id": "s",
        "tool_use_id": "t",
    }
    done, hooks = _hook(payload, HandoffResult.CANCELLED, tmp_path)
    assert done.returncode == 0
    answer = json.loads(done.stdout)
    assert set(answer) == {"decision", "reason"} and answer["decision"] == "block"
    assert "Cache the index" not in done.stdout
    assert hooks.ended == 1


def test_a_hangar_that_cannot_be_reached_is_a_hook_failure() -> None:
    """LR-115: the hook does not pretend: no hangar to ask is an error exit with a reason."""
    done = subprocess.run(
        [sys.executable, "-m", "hangar", "__claude-plan-hook", "--port", "9", "--token", "t"],
        input="{}", capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 1 and "could not reach hangar discuss" in done.stderr
