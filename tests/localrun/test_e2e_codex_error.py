"""A model error in a real Codex run becomes an `error` run message (LR-156, LR-189).

LR-156's other branch (an error that is no task message goes to the run's final status) is
checked in test_providers.py."""

from __future__ import annotations

import pytest

from hangar.testing.scenarios import scenario_from_dict

from .sandbox_hub import SandboxHub, screen_text, type_line, wait_screen, wait_until

pytestmark = pytest.mark.real_agents


def test_codex_model_error_is_logged_and_gets_no_final(sandbox_hub: SandboxHub) -> None:
    """LR-156: Codex logs a failed turn as a task message, so the failure is an ``error`` run
    message (with no final reply and no error comment) and not the run's own ``error``."""
    hub = sandbox_hub
    hub.sandbox.load(
        scenario_from_dict(
            {"name": "fails", "turns": [{"error": {"status": 400, "message": "fake refusal"}}]}
        )
    )
    issue = hub.ok("POST", "/api/issues", {"title": "An error"})
    term = hub.hangar_run(issue["key"], ["codex"], hub.agent_env("codex"))
    wait_screen(term, r"Ask Codex to do anything", 90)
    run = wait_until(lambda: hub.runs(issue["key"]), 30, "the run")[0]
    type_line(term, "please fail", r"please\s*fail")
    messages = wait_until(
        lambda: (
            [m for m in hub.messages(run["id"]) if m["type"] == "error"] and hub.messages(run["id"])
        ),
        90,
        "an error message",
        detail=lambda: (hub.messages(run["id"]), screen_text(bytes(term.output))[-1500:]),
    )
    term.send("\x03")
    term.send("\x03")
    wait_screen(term, r"local run of HGR-\d+ finished", 60)
    assert term.process.wait(30) == 0
    kinds = [m["type"] for m in messages]
    assert kinds[0] == "user_input" and "error" in kinds and "final" not in kinds
    assert any("fake refusal" in str(m["content"]) for m in messages if m["type"] == "error")
    comments = hub.ok("GET", f"/api/issues/{issue['key']}/comments")["comments"]
    assert all("fake refusal" not in c["body"] for c in comments)
    final = hub.ok("GET", f"/api/local-runs/{run['id']}")
    assert (final["status"], final["error"]) == ("completed", None)
