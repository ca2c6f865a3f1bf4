"""``hangar run`` with the real Qwen Code TUI in a PTY, a real hub, the fake model, sandboxed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hangar.testing.scenarios import scenario_from_dict

from .sandbox_hub import (
    SandboxHub,
    in_dir,
    screen_text,
    type_like_a_person,
    wait_screen,
    wait_until,
)

pytestmark = pytest.mark.real_agents


def count(hub: SandboxHub, run_id: str, kind: str, n: int) -> list[dict[str, Any]] | None:
    messages = hub.messages(run_id)
    return messages if sum(m["type"] == kind for m in messages) >= n else None


def test_qwen_tool_final_clear_error_and_foreign_session(sandbox_hub: SandboxHub) -> None:
    """LR-175, LR-189, LR-173: Qwen's own event file, through a tool turn, `/clear`, an error.

    The issue context reaches the model as system prompt, never as user input (bootstrap,
    LR-163); `RUN:` runs the shell tool (tool_use/tool_result with Qwen's tool name) and its
    reply is the final; `/clear` is no user input (LR-164) and the next turn is read from
    the new session in the same run; a failed model request is an `error`; `/quit` ends it.
    A Qwen run in another terminal in the same folder is never read.
    """
    hub = sandbox_hub
    hub.sandbox.load(
        scenario_from_dict(
            {
                "name": "qwen-run",
                "turns": [
                    {"shell": "echo hi > marker.txt"},
                    {"text": "Done: the command ran."},
                    {"text": "I am the other terminal."},
                    {"text": "Hello again."},
                    {"error": {"status": 400, "message": "the fake model refuses"}},
                ],
            }
        )
    )
    issue = hub.ok("POST", "/api/issues", {"title": "Try qwen"})
    env = hub.agent_env("qwen")
    term = hub.hangar_run(issue["key"], ["qwen", "--yolo"], env)
    wait_screen(term, r"Type your message", 180)
    # Input given before Qwen's start-up finished (its update check gives up after 5 s in
    # the sandbox) can be lost, `-i PROMPT` included: type once it says so, as a person would.
    wait_screen(term, r"Update check skipped", 120)
    run = wait_until(lambda: hub.runs(issue["key"]), 30, "the run")[0]

    def diagnose() -> str:
        screen = screen_text(bytes(term.output))[-1500:]
        requests = [(r.get("kind"), r.get("status")) for r in hub.sandbox.requests()]
        return f"messages: {hub.messages(run['id'])}\nrequests: {requests}\nscreen: {screen}"

    type_like_a_person(term, "RUN: echo hi > marker.txt", r"RUN: echo hi > marker\.txt")
    # a bound, not a delay: on a loaded machine Qwen's TUI took minutes to send its first request
    first = wait_until(lambda: count(hub, run["id"], "final", 1), 300, "a final", detail=diagnose)
    assert (hub.work / "marker.txt").read_text() == "hi\n"
    type_like_a_person(term, "/clear", r"/clear")
    other = hub.sandbox.run(
        in_dir(hub.work, ["qwen", "--yolo", "hello from elsewhere"]), cwd="/", env=env
    )
    assert other.returncode == 0, other.stderr[-2000:]
    type_like_a_person(term, "hello there", r"hello there")
    wait_until(lambda: count(hub, run["id"], "final", 2), 300, "the second final", detail=diagnose)
    type_like_a_person(term, "fail please", r"fail please")
    wait_until(lambda: count(hub, run["id"], "error", 1), 90, "the error", detail=diagnose)
    type_like_a_person(term, "/quit", r"/quit")
    wait_screen(term, r"local run of HGR-\d+ finished", 60)
    assert term.process.wait(30) == 0
    messages = hub.messages(run["id"])

    kinds = [(m["type"], m.get("tool")) for m in messages]
    assert kinds == [
        ("user_input", None),
        ("tool_use", "run_shell_command"),
        ("tool_result", "run_shell_command"),
        ("final", None),
        ("user_input", None),
        ("final", None),
        ("user_input", None),
        ("error", None),
    ], kinds
    assert [m["sourceKey"] for m in messages[:4]] == [m["sourceKey"] for m in first[:4]]
    assert messages[0]["content"] == "RUN: echo hi > marker.txt"
    assert messages[1]["input"]["input"]["command"] == "echo hi > marker.txt"
    assert messages[3]["content"] == "Done: the command ran."
    assert messages[5]["content"] == "Hello again."
    assert "refuses" in messages[7]["content"]
    sessions = {m["input"]["session_id"] for m in messages}
    assert len(sessions) == 2  # /clear: the new session is followed in the same run
    assert all(str(m["sourceKey"]).startswith("session:") for m in messages)
    assert all(m["source"] == "qwen-json-file" for m in messages)
    text = json.dumps(messages)
    assert "elsewhere" not in text and "other terminal" not in text
    assert issue["key"] not in " ".join(str(m.get("content")) for m in messages)
    turns = [r for r in hub.sandbox.requests() if r.get("kind") == "turn"]
    assert issue["key"] in json.dumps(turns[0]["body"]["messages"][0])  # the system prompt

    final_run = hub.ok("GET", f"/api/local-runs/{run['id']}")
    assert (final_run["status"], final_run["exitCode"]) == ("completed", 0)
    assert final_run["usage"][0]["provider"] == "qwen"
