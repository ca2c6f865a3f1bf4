"""``hangar run`` with the real Claude Code TUI in a PTY, a real hub, the fake model, sandboxed."""

from __future__ import annotations

import re
from typing import Any

import pytest

from hangar.testing.scenarios import scenario_from_dict

from .sandbox_hub import SandboxHub, in_dir, screen_text, type_line, wait_screen, wait_until

pytestmark = pytest.mark.real_agents

KEY_RE = re.compile(r"^claude:session:([0-9a-f-]{36}):line:([0-9a-f-]{36}):")


def finals(hub: SandboxHub, run_id: str, count: int) -> list[dict[str, Any]] | None:
    messages = hub.messages(run_id)
    return messages if sum(m["type"] == "final" for m in messages) >= count else None


def test_claude_turn_tool_final_and_clear(sandbox_hub: SandboxHub) -> None:
    """LR-205, LR-207, LR-208, LR-218..LR-220, LR-178..LR-181: a real Claude TUI run followed
    through its hook.

    A tool turn (Bash) and a final reply, then `/clear` (a new session reported by the hook,
    followed in the same run), a plain turn, then Ctrl+C twice. Meanwhile a second Claude
    session started in another terminal in the same directory is never read (LR-173).
    """
    hub = sandbox_hub
    hub.sandbox.load(
        scenario_from_dict(
            {
                "name": "claude-run",
                "turns": [
                    {"shell": "echo hi > marker.txt"},
                    {"text": "Done: the command ran."},
                    {"text": "I am the other terminal."},
                    {"text": "Hello again."},
                ],
            }
        )
    )
    issue = hub.ok("POST", "/api/issues", {"title": "Try claude"})
    env = hub.agent_env("claude")
    term = hub.hangar_run(issue["key"], ["claude", "--allowedTools", "Bash"], env)
    wait_screen(term, r"auto mode on|for shortcuts", 90)
    run = wait_until(lambda: hub.runs(issue["key"]), 30, "the run")[0]

    def diagnose() -> str:
        screen = screen_text(bytes(term.output))[-1500:]
        return f"messages: {hub.messages(run['id'])}\nscreen: {screen}"

    type_line(term, "RUN: echo hi > marker.txt", r"RUN:\s*echo")
    first = wait_until(
        lambda: finals(hub, run["id"], 1), 90, "the first final reply", detail=diagnose
    )
    assert (hub.work / "marker.txt").read_text() == "hi\n"
    type_line(term, "/clear", r"Start a new session")
    wait_screen(term, r"clear", 30)

    # Another terminal, same directory, plain `claude -p` (no hangar): never tracked.
    other = hub.sandbox.run(
        in_dir(hub.work, ["claude", "-p", "hello from elsewhere"]), cwd="/", env=env
    )
    assert other.returncode == 0, other.stderr[-2000:]

    type_line(term, "hello there", r"hello\s*there")
    messages = wait_until(
        lambda: finals(hub, run["id"], 2), 90, "the second final reply", detail=diagnose
    )
    term.send("\x03")
    wait_screen(term, r"again to exit", 30)
    term.send("\x03")
    wait_screen(term, r"local run of HGR-\d+ finished", 60)
    assert term.process.wait(30) == 0
    messages = hub.messages(run["id"])

    kinds = [(m["type"], m.get("tool")) for m in messages]
    assert kinds == [
        ("user_input", None),
        ("tool_use", "Bash"),
        ("tool_result", "Bash"),
        ("final", None),
        ("user_input", None),
        ("final", None),
    ], kinds
    assert [(m["seq"], m["sourceKey"]) for m in messages[:4]] == [
        (m["seq"], m["sourceKey"]) for m in first[:4]
    ]  # keys did not change as the run went on
    assert messages[3]["content"] == "Done: the command ran."
    assert messages[4]["content"] == "hello there"
    assert messages[5]["content"] == "Hello again."
    assert messages[1]["input"]["input"] == {"command": "echo hi > marker.txt"}
    sessions = [KEY_RE.match(str(m["sourceKey"])).group(1) for m in messages]  # type: ignore[union-attr]
    assert len(set(sessions)) == 2  # /clear: one run follows the new session
    transcripts = {p.stem for p in (hub.home / ".claude" / "projects").rglob("*.jsonl")}
    assert set(sessions) < transcripts  # the other terminal's session exists, unread
    assert len(transcripts - set(sessions)) == 1
    assert all("elsewhere" not in str(m.get("content")) for m in messages)
    assert all("other terminal" not in str(m.get("content")) for m in messages)

    again = {k: messages[2][k] for k in ("type", "tool", "source", "sourceKey", "output")}
    status, stored = hub.api("POST", f"/api/local-runs/{run['id']}/messages", again)
    assert (status, stored["seq"]) == (200, messages[2]["seq"])

    final_run = hub.ok("GET", f"/api/local-runs/{run['id']}")
    assert (final_run["status"], final_run["exitCode"]) == ("completed", 0)
    assert final_run["usage"] and final_run["usage"][0]["provider"] == "claude"
    assert final_run["usage"][0]["outputTokens"] > 0

    def replies() -> list[str] | None:
        comments = hub.ok("GET", f"/api/issues/{issue['key']}/comments")["comments"]
        bodies = [str(c["body"]) for c in comments[1:]]
        return bodies if len(bodies) >= 4 else None

    bodies = wait_until(replies, 30, "the synced comments")
    assert bodies[0] == "RUN: echo hi > marker.txt"
    assert bodies[1].endswith("Done: the command ran.")
    assert bodies[2] == "hello there"
    assert bodies[3].endswith("Hello again.")
    assert len(bodies) == 4
