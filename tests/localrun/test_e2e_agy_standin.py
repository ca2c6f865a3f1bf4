"""``hangar run -- agy`` against hangar's Antigravity **stand-in** (the real CLI is not in a
package registry): a PTY, a real hub, the sandbox; the stand-in writes agy's step log
where agy keeps it and names its conversations in ``--log-file``
(:mod:`hangar.testing.agy_standin`)."""

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


def test_agy_turns_tools_slash_error_new_conversation_and_foreign_one(
    sandbox_hub: SandboxHub,
) -> None:
    """LR-177, LR-172, LR-173, LR-164, LR-189 (stand-in): the conversations the run's own
    `--log-file` names are followed, every one of them, and no other.

    Bootstrap (the CLI starts with hangar's `--log-file` and the run's id), a `RUN:` turn
    (run_command tool_use/tool_result named alike, then the final), a bare slash command
    (nothing), one with arguments (user input marked `command`, its answer the final), a
    conversation another `agy` starts in the same folder (never read), a failed turn
    (`ERROR_MESSAGE` → `error`), and a new conversation inside the CLI (a new `Conversation
    ID:` in the log): its turns reach the run under the new id.
    """
    hub = sandbox_hub
    started = standin_run(
        hub,
        ["agy"],
        "hangar.testing.agy_standin",
        "Try agy",
        r"test stand-in\) · conversation \S+ · run \S+",
    )
    env, term, run = started.env, started.term, started.run
    diagnose = started.diagnose

    type_line(term, "RUN: echo hi > marker.txt", r"RUN: echo hi > marker\.txt")
    wait_until(lambda: count(hub, run["id"], "final", 1), 60, "a final", detail=diagnose)
    assert (hub.work / "marker.txt").read_text() == "hi\n"
    type_line(term, "/help", r"/help")
    type_line(term, "/review main", r"/review main")
    wait_until(lambda: count(hub, run["id"], "final", 2), 60, "the command's final",
               detail=diagnose)  # fmt: skip
    other = hub.sandbox.run(in_dir(hub.work, ["agy", "-p", "hello from elsewhere"]), cwd="/",
                            env=env)  # fmt: skip
    assert other.returncode == 0, other.stderr[-2000:]
    type_line(term, "fail please", r"fail please")
    wait_until(lambda: count(hub, run["id"], "error", 1), 60, "the error", detail=diagnose)
    type_line(term, "/clear", r"/clear")
    wait_screen(term, r"New conversation \S+")
    type_line(term, "after the switch", r"after the switch")
    wait_until(lambda: count(hub, run["id"], "final", 3), 60, "the new conversation's final",
               detail=diagnose)  # fmt: skip
    quit_run(term)

    messages = hub.messages(run["id"])
    kinds = [(m["type"], m.get("tool")) for m in messages]
    assert kinds == [
        ("user_input", None),
        ("thinking", None),
        ("tool_use", "run_command"),
        ("tool_result", "run_command"),
        ("final", None),
        ("user_input", None),
        ("final", None),
        ("user_input", None),
        ("error", None),
        ("user_input", None),
        ("final", None),
    ], kinds
    assert messages[0]["content"] == "RUN: echo hi > marker.txt"
    assert messages[2]["input"]["input"] == {"CommandLine": "echo hi > marker.txt"}
    assert messages[3]["output"].startswith("The command completed successfully.")
    assert messages[4]["content"] == "Done: the command ran."
    assert messages[5]["content"] == "/review main"
    assert messages[5]["input"]["command"] is True
    assert messages[6]["content"] == "You said: /review main"
    assert messages[8]["content"] == "stand-in failure"
    assert messages[10]["content"] == "You said: after the switch"
    first, second = messages[0]["input"]["session_id"], messages[9]["input"]["session_id"]
    assert first != second
    assert {m["input"]["session_id"] for m in messages[:9]} == {first}
    assert {m["input"]["session_id"] for m in messages[9:]} == {second}
    text = json.dumps(messages)
    assert "elsewhere" not in text and "/help" not in text
    keys = [m["sourceKey"] for m in messages]
    assert len(set(keys)) == len(keys)
    assert all(k.startswith(f"agy:conversation:{m['input']['session_id']}:step-line:")
               for k, m in zip(keys, messages, strict=True))  # fmt: skip
    assert all(m["source"] == "agy-steps" for m in messages)
    assert hub.ok("GET", f"/api/local-runs/{run['id']}")["status"] == "completed"
