"""The agent's checklist on its issue while ``hangar run`` works on it: the real Codex and
Claude Code TUIs in a PTY, a real hub, the fake model, in the sandbox.

The scripted model writes a list, then an update the rules refuse (an unknown status), then
answers; on the next request it clears the list. The issue (API and page) shows the list as
the agent last committed it, keeps it through the refused update, shows the clear, and keeps
the final list after the run ends. No comment is ever written for an update.
"""

from __future__ import annotations

from typing import Any

import pytest

from hangar.testing.scenarios import scenario_from_dict

from .sandbox_hub import SandboxHub, screen_text, type_line, wait_screen, wait_until

pytestmark = pytest.mark.real_agents

SCENARIO = {
    "name": "issue-checklist",
    "turns": [
        {
            "plan": {
                "items": [
                    {"content": "Keep me", "status": "in_progress"},
                    {"content": "Keep me too", "status": "pending"},
                ]
            }
        },
        {
            "call": {
                "update_plan": {"plan": [{"step": "Broken", "status": "bogus"}]},
                "TodoWrite": {
                    "todos": [{"content": "Broken", "status": "bogus", "activeForm": "Breaking"}]
                },
            }
        },
        {"text": "Kept the list."},
        {"plan": {"items": []}},
        {"text": "Cleared the list."},
    ],
}
PLAN_TOOL = {"codex": "update_plan", "claude": "TodoWrite"}
READY = {"codex": r"Ask Codex to do anything", "claude": r"auto mode on|for shortcuts"}


def _items(checklist: dict[str, Any] | None) -> list[tuple[str, str]] | None:
    if checklist is None:
        return None
    return [(i["content"], i["status"]) for i in checklist["items"]]


@pytest.mark.parametrize("cli", ["codex", "claude"])
def test_the_run_checklist_appears_on_its_issue(cli: str, sandbox_hub: SandboxHub) -> None:
    """CL-023, CL-025, CL-070: the issue mirrors the agent's own list, keeps it through an
    invalid update, shows a clear as cleared and keeps that final list after the run; the plan
    tool calls stay in the execution log (CL-067); no comment per update."""
    hub = sandbox_hub
    hub.sandbox.load(scenario_from_dict(SCENARIO))
    issue = hub.ok("POST", "/api/issues", {"title": f"Plan with {cli}"})
    key = issue["key"]
    term = hub.hangar_run(key, [cli], hub.agent_env(cli))
    wait_screen(term, READY[cli], 90)
    run = wait_until(lambda: hub.runs(key), 30, "the run")[0]

    def finals(count: int) -> list[dict[str, Any]] | None:
        messages = hub.messages(run["id"])
        return messages if sum(m["type"] == "final" for m in messages) >= count else None

    def diagnose() -> str:
        screen = screen_text(bytes(term.output))[-1500:]
        return f"messages: {hub.messages(run['id'])}\nscreen: {screen}"

    type_line(term, "Plan the work", r"Plan\s*the\s*work")
    first = wait_until(lambda: finals(1), 90, "the first final reply", detail=diagnose)
    kept = [("Keep me", "in_progress"), ("Keep me too", "pending")]
    checklist = hub.ok("GET", f"/api/issues/{key}")["checklist"]
    assert _items(checklist) == kept
    assert (checklist["completed"], checklist["total"], checklist["runId"]) == (0, 2, run["id"])
    page = hub.page(f"/issues/{key}")
    assert "Keep me too" in page and "0/2 done" in page and "Broken" not in page

    plan_calls = [m for m in first if m["type"] == "tool_use" and m["tool"] == PLAN_TOOL[cli]]
    committed = [m["input"]["checklist"] for m in plan_calls if "checklist" in m["input"]]
    assert [_items(c) for c in committed] == [kept]  # committed once; the invalid one not
    if cli == "claude":  # the refused call stays visible as tool activity
        assert len(plan_calls) == 2 and "checklist" not in plan_calls[1]["input"]
    else:  # Codex refuses the bad update_plan itself and reports no plan change at all
        assert len(plan_calls) == 1

    type_line(term, "Now clear it", r"Now\s*clear\s*it")
    wait_until(lambda: finals(2), 90, "the second final reply", detail=diagnose)
    cleared = hub.ok("GET", f"/api/issues/{key}")["checklist"]
    assert _items(cleared) == [] and cleared["total"] == 0
    page = hub.page(f"/issues/{key}")
    assert "The agent cleared its checklist." in page and "Keep me too" not in page

    term.send("\x03")
    if cli == "claude":
        wait_screen(term, r"again to exit", 30)
    term.send("\x03")
    wait_screen(term, r"local run of HGR-\d+ finished", 60)
    assert term.process.wait(30) == 0
    after = hub.ok("GET", f"/api/issues/{key}")["checklist"]
    assert hub.ok("GET", f"/api/local-runs/{run['id']}")["status"] == "completed"
    assert _items(after) == [] and after["runId"] == run["id"]

    def replies() -> list[str] | None:
        comments = hub.ok("GET", f"/api/issues/{key}/comments")["comments"]
        bodies = [str(c["body"]) for c in comments[1:]]
        return bodies if len(bodies) >= 4 else None

    bodies = wait_until(replies, 30, "the synced comments")
    assert len(bodies) == 4  # two requests, two final replies: nothing for the updates
    assert not any("Keep me" in body for body in bodies)
