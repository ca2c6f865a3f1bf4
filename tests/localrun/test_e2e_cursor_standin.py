"""``hangar run -- cursor-agent`` against hangar's Cursor **stand-in** (the real CLI is not in
a package registry): a PTY, a real hub, the sandbox; the stand-in writes Cursor's
transcript format where Cursor writes it (:mod:`hangar.testing.cursor_standin`)."""

from __future__ import annotations

import json

import pytest

from .sandbox_hub import (
    SandboxHub,
    count,
    in_dir,
    quit_run,
    standin_run,
    type_line,
    wait_screen,
    wait_until,
)

pytestmark = pytest.mark.real_agents


def test_cursor_named_chat_tool_slash_error_resume_and_foreign_chat(
    sandbox_hub: SandboxHub,
) -> None:
    """LR-177, LR-172, LR-173, LR-164, LR-189 (stand-in): the chat hangar created is the one
    followed.

    Bootstrap (the CLI starts in the chat hangar created, with the run's id in its
    environment), a `RUN:` turn (Bash tool_use/tool_result, then the final), a bare slash
    command (no user input), one with arguments (user input marked `command`, and its answer
    the final), an ordinary message and its final, a failed turn (`error`); a chat started in
    another terminal in the same folder is never read, nor is a new chat started inside the
    TUI (`/new-chat`: nothing names it, so it looks like the other terminal's); a second run
    with `--resume CHAT` follows that chat from its end (no line of the first run again).
    """
    hub = sandbox_hub
    started = standin_run(
        hub,
        ["cursor-agent"],
        "hangar.testing.cursor_standin",
        "Try cursor",
        r"test stand-in\) · chat \S+ · args --resume \S+ · run \S+",
    )
    env, issue, term, run = started.env, started.issue, started.term, started.run
    diagnose = started.diagnose

    type_line(term, "RUN: echo hi > marker.txt", r"RUN: echo hi > marker\.txt")
    wait_until(lambda: count(hub, run["id"], "final", 1), 60, "a final", detail=diagnose)
    assert (hub.work / "marker.txt").read_text() == "hi\n"
    type_line(term, "/help", r"/help")
    type_line(term, "/review main", r"/review main")
    wait_until(
        lambda: count(hub, run["id"], "final", 2), 60, "the command's final", detail=diagnose
    )
    other = hub.sandbox.run(
        in_dir(hub.work, ["cursor-agent", "-p", "hello from elsewhere"]), cwd="/", env=env
    )
    assert other.returncode == 0, other.stderr[-2000:]
    type_line(term, "hello there", r"hello there")
    wait_until(lambda: count(hub, run["id"], "final", 3), 60, "the third final", detail=diagnose)
    type_line(term, "fail please", r"fail please")
    wait_until(lambda: count(hub, run["id"], "error", 1), 60, "the error", detail=diagnose)
    type_line(term, "/new-chat", r"/new-chat")
    wait_screen(term, r"New chat \S+")
    type_line(term, "in the new chat", r"in the new chat")
    wait_screen(term, r"You said: in the new chat")
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
        ("final", None),
        ("user_input", None),
        ("error", None),
    ], kinds
    assert messages[0]["content"] == "RUN: echo hi > marker.txt"
    assert messages[2]["input"]["input"] == {"command": "echo hi > marker.txt"}
    assert messages[3]["output"] == ""  # the command prints nothing
    assert messages[4]["content"] == "Done: the command ran."
    assert (messages[5]["content"], messages[5]["input"]["slash_command"]) == (
        "/review main",
        "review",
    )
    assert messages[5]["input"]["command"] is True
    assert messages[6]["content"] == "Ran /review with: main"
    assert messages[8]["content"] == "You said: hello there"
    assert messages[10]["content"] == "stand-in failure"
    chats = {m["input"]["session_id"] for m in messages}
    assert len(chats) == 1
    assert all(m["source"] == "cursor-jsonl" for m in messages)
    assert "elsewhere" not in json.dumps(messages)
    assert "new chat" not in json.dumps(messages)
    keys = [m["sourceKey"] for m in messages]
    assert len(set(keys)) == len(keys)
    assert all(k.startswith(f"cursor:chat:{next(iter(chats))}:line:") for k in keys)
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
