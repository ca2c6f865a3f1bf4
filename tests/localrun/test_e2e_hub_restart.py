"""The hub goes away during a run: nothing is lost, everything arrives exactly once."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from hangar.testing.scenarios import scenario_from_dict

from .sandbox_hub import USER_TOKEN, SandboxHub, in_dir, type_line, wait_screen, wait_until

pytestmark = pytest.mark.real_agents


def spooled(hub: SandboxHub) -> list[Path]:
    return sorted((hub.client_home / "local-run-spool").rglob("*.json"))


def test_hub_down_spools_and_everything_arrives_once(sandbox_hub: SandboxHub) -> None:
    """Nothing lost (DESIGN §6): a real `hangar serve` is stopped and restarted twice.

    Turn 2 happens while the hub is down and is re-sent by the running reporter itself once
    the hub is back; turn 3 and the final status happen while it is down again and the run
    ends; `hangar local-run sync-pending` sends them later. Every message is stored once.
    """
    hub = sandbox_hub
    hub.sandbox.load(
        scenario_from_dict(
            {"name": "three", "turns": [{"text": "one"}, {"text": "two"}, {"text": "three"}]}
        )
    )
    issue = hub.ok("POST", "/api/issues", {"title": "Survive a restart"})
    term = hub.hangar_run(issue["key"], ["codex"], hub.agent_env("codex"))
    wait_screen(term, r"Ask Codex to do anything", 90)
    run = wait_until(lambda: hub.runs(issue["key"]), 30, "the run")[0]
    type_line(term, "first question", r"first\s*question")
    wait_until(lambda: len(hub.messages(run["id"])) >= 2, 60, "turn 1 on the hub")

    hub.stop_hub()
    type_line(term, "second question", r"second\s*question")
    wait_until(lambda: len(spooled(hub)) >= 2, 60, "turn 2 in the spool")
    hub.start_hub()
    wait_until(lambda: len(hub.messages(run["id"])) >= 4, 60, "turn 2 re-sent by itself")
    wait_until(lambda: not spooled(hub), 30, "an empty spool")

    hub.stop_hub()
    type_line(term, "third question", r"third\s*question")
    wait_until(lambda: len(spooled(hub)) >= 2, 60, "turn 3 in the spool")
    term.send("\x03")
    term.send("\x03")
    wait_screen(term, r"kept in the spool", 90)
    assert term.process.wait(30) == 0
    assert any(p.name == "status.json" for p in spooled(hub))

    hub.start_hub()
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(hub.home),
        "HANGAR_HOME": str(hub.client_home),
        "HANGAR_SERVER_URL": hub.url,
        "HANGAR_TOKEN": USER_TOKEN,
    }
    synced = hub.sandbox.run(
        in_dir(hub.root, [sys.executable, "-m", "hangar", "local-run", "sync-pending"]),
        cwd="/",
        env=env,
    )
    assert synced.returncode == 0, synced.stderr
    assert b"0 remain queued" in synced.stdout
    assert not spooled(hub)

    messages: list[dict[str, Any]] = hub.messages(run["id"])
    assert [(m["type"], m["content"]) for m in messages] == [
        ("user_input", "first question"),
        ("final", "one"),
        ("user_input", "second question"),
        ("final", "two"),
        ("user_input", "third question"),
        ("final", "three"),
    ]
    assert [m["seq"] for m in messages] == [1, 2, 3, 4, 5, 6]
    assert len({m["sourceKey"] for m in messages}) == 6
    done = hub.ok("GET", f"/api/local-runs/{run['id']}")
    assert (done["status"], done["exitCode"]) == ("completed", 0)

    def replies() -> list[str] | None:
        comments = hub.ok("GET", f"/api/issues/{issue['key']}/comments")["comments"]
        bodies = [str(c["body"]) for c in comments[1:]]
        return bodies if len(bodies) >= 6 else None

    bodies = wait_until(replies, 30, "six replies")
    assert len(bodies) == 6 and bodies[4] == "third question"
