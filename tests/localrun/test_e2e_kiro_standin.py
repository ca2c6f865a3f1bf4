"""``hangar run -- kiro-cli chat`` against hangar's Kiro **stand-in** (the real CLI is not in
a package registry): a PTY, a real hub, the sandbox; the stand-in writes Kiro CLI's
per-folder conversation row where Kiro writes it (:mod:`hangar.testing.kiro_standin`)."""

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


def test_kiro_turns_tools_slash_error_clear_and_other_terminals_in_the_folder(
    sandbox_hub: SandboxHub,
) -> None:
    """LR-173, LR-189 (stand-in): the folder's row is shared by every
    `kiro-cli chat` in the folder, and only the run's own conversation reaches the run.

    Bootstrap (the run's id reaches the CLI); another `kiro-cli chat` in the same folder,
    running while the run's CLI answers its first turn, writes the row with its own
    conversation: nothing of it is read, and the run's turns written meanwhile arrive with the
    run's next save; a one-shot `kiro-cli chat --no-interactive` later is not read either. A
    `RUN:` turn (execute_bash tool_use/tool_result, then the final), a slash command (Kiro
    keeps it out of its history: nothing), an ordinary message and its final, a failed tool
    (`is_error`), and `/clear` (same conversation id, history emptied): the turns after it are
    new messages, none lost to the keys of the turns before it.
    """
    hub = sandbox_hub
    started = standin_run(
        hub,
        ["kiro-cli", "chat"],
        "hangar.testing.kiro_standin",
        "Try kiro",
        r"test stand-in\) · conversation \S+ · run \S+",
    )
    env, term, run = started.env, started.term, started.run
    diagnose = started.diagnose

    other = hub.sandbox.spawn_pty(in_dir(hub.work, ["kiro-cli", "chat"]), cwd="/", env=env)
    wait_screen(other, r"test stand-in\) · conversation \S+ · run -", 60)
    type_line(other, "hello from elsewhere", r"hello from elsewhere")
    wait_screen(other, r"You said: hello from elsewhere")
    type_line(term, "RUN: echo hi > marker.txt", r"RUN: echo hi > marker\.txt")
    wait_screen(term, r"Done: the command ran\.")
    assert (hub.work / "marker.txt").read_text() == "hi\n"
    type_line(other, "/quit", r"/quit")
    assert other.process.wait(30) == 0

    type_line(term, "/context add README.md", r"/context add README\.md")
    wait_screen(term, r"is handled by the CLI itself")
    type_line(term, "hello there", r"hello there")
    wait_until(lambda: count(hub, run["id"], "final", 2), 60, "two finals", detail=diagnose)
    once = hub.sandbox.run(
        in_dir(hub.work, ["kiro-cli", "chat", "--no-interactive", "elsewhere again"]),
        cwd="/",
        env=env,
    )
    assert once.returncode == 0, once.stderr[-2000:]
    type_line(term, "fail please", r"fail please")
    wait_until(lambda: count(hub, run["id"], "final", 3), 60, "the failed turn", detail=diagnose)
    type_line(term, "/clear", r"/clear")
    wait_screen(term, r"Conversation history cleared\.")
    type_line(term, "after clear", r"after clear")
    wait_until(lambda: count(hub, run["id"], "final", 4), 60, "the answer after /clear",
               detail=diagnose)  # fmt: skip
    quit_run(term)

    messages = hub.messages(run["id"])
    kinds = [(m["type"], m.get("tool")) for m in messages]
    assert kinds == [
        ("user_input", None),
        ("tool_use", "execute_bash"),
        ("tool_result", "execute_bash"),
        ("final", None),
        ("user_input", None),
        ("final", None),
        ("user_input", None),
        ("tool_use", "execute_bash"),
        ("tool_result", "execute_bash"),
        ("final", None),
        ("user_input", None),
        ("final", None),
    ], kinds
    assert messages[0]["content"] == "RUN: echo hi > marker.txt"
    assert messages[1]["input"]["input"] == {"command": "echo hi > marker.txt"}
    assert messages[2]["output"] == "" and messages[2]["input"]["is_error"] is False
    assert messages[3]["content"] == "Done: the command ran."
    assert (messages[4]["content"], messages[5]["content"]) == (
        "hello there",
        "You said: hello there",
    )
    assert messages[8]["input"]["is_error"] is True
    assert messages[8]["output"] == "stand-in failure"
    assert messages[9]["content"] == "The command failed."
    assert (messages[10]["content"], messages[11]["content"]) == (
        "after clear",
        "You said: after clear",
    )
    text = json.dumps(messages)
    assert "elsewhere" not in text and "/context" not in text
    (conversation,) = {m["input"]["session_id"] for m in messages}
    keys = [m["sourceKey"] for m in messages]
    assert len(set(keys)) == len(keys)
    assert all(k.startswith(f"kiro:conversation:{conversation}:message:") for k in keys)
    assert all(m["source"] == "kiro-sqlite" for m in messages)
    assert hub.ok("GET", f"/api/local-runs/{run['id']}")["status"] == "completed"
