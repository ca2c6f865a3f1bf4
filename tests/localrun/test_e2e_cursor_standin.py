"""``hangar run -- cursor-agent`` against hangar's Cursor **stand-in** (the real CLI is not in
the package registries here): a PTY, a real hub, the sandbox; the stand-in writes Cursor's
transcript format where Cursor writes it (:mod:`hangar.testing.cursor_standin`)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from hangar.testing.pty_process import PtyProcess

from .sandbox_hub import SandboxHub, count, in_dir, type_line, wait_screen, wait_until

pytestmark = pytest.mark.real_agents


def standin_env(hub: SandboxHub) -> dict[str, str]:
    """A PATH whose ``cursor-agent`` is the stand-in, and the run's own home."""
    bin_dir = hub.root / "standin-bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "cursor-agent"
    script.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" -m hangar.testing.cursor_standin "$@"\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    return {
        "PATH": f"{bin_dir}:{Path(sys.executable).parent}:{os.environ['PATH']}",
        "HOME": str(hub.home),
        "TERM": "xterm-256color",
    }


def quit_run(term: PtyProcess) -> None:
    type_line(term, "/quit", r"/quit")
    wait_screen(term, r"local run of HGR-\d+ finished", 60)
    assert term.process.wait(30) == 0


def test_cursor_named_chat_tool_slash_error_resume_and_foreign_chat(
    sandbox_hub: SandboxHub,
) -> None:
    """LR-177, LR-172, LR-173, LR-189 (stand-in): the chat hangar created is the one followed.

    A `RUN:` turn (Bash tool_use/tool_result, then the final), a bare slash command (no user
    input, LR-164), an ordinary message and its final, a failed turn (`error`); a chat
    started in another terminal in the same folder is never read; a second run with
    `--resume CHAT` follows that chat from its end (no line of the first run again).
    """
    hub = sandbox_hub
    env = standin_env(hub)
    issue = hub.ok("POST", "/api/issues", {"title": "Try cursor"})
    term = hub.hangar_run(issue["key"], ["cursor-agent"], env)
    wait_screen(term, r"test stand-in\) · chat \S+ · args --resume \S+", 60)
    run = wait_until(lambda: hub.runs(issue["key"]), 30, "the run")[0]

    def diagnose() -> str:
        return f"messages: {hub.messages(run['id'])}"

    type_line(term, "RUN: echo hi > marker.txt", r"RUN: echo hi > marker\.txt")
    wait_until(lambda: count(hub, run["id"], "final", 1), 60, "a final", detail=diagnose)
    assert (hub.work / "marker.txt").read_text() == "hi\n"
    type_line(term, "/help", r"/help")
    other = hub.sandbox.run(
        in_dir(hub.work, ["cursor-agent", "-p", "hello from elsewhere"]), cwd="/", env=env
    )
    assert other.returncode == 0, other.stderr[-2000:]
    type_line(term, "hello there", r"hello there")
    wait_until(lambda: count(hub, run["id"], "final", 2), 60, "the second final", detail=diagnose)
    type_line(term, "fail please", r"fail please")
    wait_until(lambda: count(hub, run["id"], "error", 1), 60, "the error", detail=diagnose)
    quit_run(term)

    messages = hub.messages(run["id"])
    kinds = [(m["type"], m.get("tool")) for m in messages]
    assert kinds == [
        ("user_input", None),
        ("text", None),
        ("tool_use", "Bash"),
        ("tool_result", "Bash"),
        ("final", None),
        ("user_input", None),
        ("final", None),
        ("user_input", None),
        ("error", None),
    ], kinds
    assert messages[0]["content"] == "RUN: echo hi > marker.txt"
    assert messages[2]["input"]["input"] == {"command": "echo hi > marker.txt"}
    assert messages[3]["output"] == ""  # the command prints nothing
    assert messages[4]["content"] == "Done: the command ran."
    assert messages[6]["content"] == "You said: hello there"
    assert messages[8]["content"] == "stand-in failure"
    chats = {m["input"]["session_id"] for m in messages}
    assert len(chats) == 1
    assert all(m["source"] == "cursor-jsonl" for m in messages)
    assert "elsewhere" not in json.dumps(messages)
    assert hub.ok("GET", f"/api/local-runs/{run['id']}")["status"] == "completed"

    (chat,) = chats
    again = hub.hangar_run(issue["key"], ["cursor-agent", "--resume", chat], env)
    wait_screen(again, rf"chat {chat} · args --resume {chat}", 60)
    second = wait_until(lambda: [r for r in hub.runs(issue["key"]) if r["id"] != run["id"]], 30,
                        "the second run")[0]  # fmt: skip
    type_line(again, "hello again", r"hello again")
    wait_until(lambda: count(hub, second["id"], "final", 1), 60, "the resumed final")
    quit_run(again)
    resumed = hub.messages(second["id"])
    assert [(m["type"], m["content"]) for m in resumed] == [
        ("user_input", "hello again"),
        ("final", "You said: hello again"),
    ]
    assert {m["input"]["session_id"] for m in resumed} == {chat}
