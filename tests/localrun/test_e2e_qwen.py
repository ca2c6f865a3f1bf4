"""``hangar run`` with the real Qwen Code TUI in a PTY (its OpenAI client pointed at the fake
model's Chat Completions), a real hub, sandboxed: the session hangar names with
``--session-id`` is followed, and the sessions the same Qwen process moves to after it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hangar.testing.scenarios import scenario_from_dict

from .sandbox_hub import (
    SandboxHub,
    count,
    in_dir,
    screen_text,
    type_like_a_person,
    wait_screen,
    wait_until,
)

pytestmark = pytest.mark.real_agents


def chats(hub: SandboxHub) -> dict[str, str]:
    """Every Qwen chat file in the agent home, by session id."""
    folder = hub.home / ".qwen" / "projects"
    return {p.stem: p.read_text("utf-8") for p in folder.glob("*/chats/*.jsonl")}


def records(hub: SandboxHub) -> list[Path]:
    """Qwen's records of its live processes (``sessions/PID.json``)."""
    return sorted((hub.home / ".qwen" / "sessions").glob("*.json"))


def session_of(record: Path) -> str:
    try:
        return str(json.loads(record.read_text("utf-8"))["sessionId"])
    except (OSError, ValueError, KeyError):
        return ""


def test_qwen_tool_slash_commands_switches_error_and_a_foreign_session(
    sandbox_hub: SandboxHub,
) -> None:
    """LR-177, LR-172, LR-173, LR-163, LR-164, LR-189 with the real Qwen Code 0.24.4.

    The issue context reaches the model in the system prompt, never as a message (bootstrap);
    a `RUN:` turn (run_shell_command tool_use/tool_result with Qwen's tool name, its reply
    final once the next thing is typed); a bare slash command is nothing, one with arguments
    a `command`; a Qwen TUI in another terminal in the same folder, started first, writes its
    own chat and moves to a new session of its own, and neither is ever read; `/clear` moves
    the run to a new session, followed (an ordinary turn and a failed model request,
    `error`); `/resume FIRST` goes back, and only what is new there is reported, its last
    reply final once Qwen has ended; a second run with `--resume ID` follows that session from
    its end.
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
                    {"text": "Second answer."},
                    {"error": {"status": 400, "message": "the fake model refuses"}},
                    {"text": "Resumed answer."},
                    {"text": "Resumed again."},
                ],
            }
        )
    )
    issue = hub.ok("POST", "/api/issues", {"title": "Try qwen"})
    env = hub.agent_env("qwen")
    other = hub.sandbox.spawn_pty(in_dir(hub.work, ["qwen", "--yolo"]), cwd="/", env=env)
    wait_screen(other, "Type your message", 120)  # another terminal, the same folder, first
    term = hub.hangar_run(issue["key"], ["qwen", "--yolo"], env)
    run = wait_until(lambda: hub.runs(issue["key"]), 60, "the run")[0]

    def diagnose() -> str:
        screen = screen_text(bytes(term.output))[-1500:]
        requests = [(r.get("kind"), r.get("status")) for r in hub.sandbox.requests()]
        files = {k[:8]: v[-1500:] for k, v in chats(hub).items()}
        return (
            f"messages: {hub.messages(run['id'])}\nrequests: {requests}\nchats: {files}\n"
            f"screen: {screen}"
        )

    def typed(text: str) -> None:
        other.read_available(0)
        type_like_a_person(term, text, re.escape(text))

    def until(condition: Callable[[], Any], what: str, timeout: float = 90) -> Any:
        """Wait for ``condition``, reading both terminals meanwhile, as a terminal does (a TUI
        writing to a full PTY blocks)."""

        def read_then(condition: Callable[[], Any]) -> Any:
            term.read_available(0.1)
            other.read_available(0)
            return condition()

        return wait_until(lambda: read_then(condition), timeout, what, detail=diagnose)

    def on_screen(text: str) -> Callable[[], bool]:
        return lambda: text in screen_text(bytes(term.output))

    wait_screen(term, "Type your message", 120)
    typed("RUN: echo hi > marker.txt")
    first = until(lambda: count(hub, run["id"], "tool_result", 1), "the tool result")
    until(on_screen("Done: the command ran."), "the reply")
    assert (hub.work / "marker.txt").read_text() == "hi\n"
    typed("/about")  # bare: no input, and it ends the turn before it (the final)
    until(lambda: count(hub, run["id"], "final", 1), "the final")
    typed("/stats model")
    until(lambda: count(hub, run["id"], "user_input", 2), "the command")
    type_like_a_person(other, "hello from elsewhere", "hello from elsewhere")
    wait_screen(other, "I am the other terminal", 90)
    type_like_a_person(other, "/clear", "/clear")  # its switch is not ours
    (ours,) = {m["input"]["session_id"] for m in hub.messages(run["id"])}
    typed("/clear")
    until(lambda: len(records(hub)) == 2 and ours not in map(session_of, records(hub)),
          "Qwen's new session")  # fmt: skip
    typed("second question")
    until(lambda: count(hub, run["id"], "user_input", 3), "the second question")
    typed("fail please")
    until(lambda: count(hub, run["id"], "error", 1), "the error")
    typed(f"/resume {ours}")
    until(lambda: ours in map(session_of, records(hub)), "the resumed session")
    typed("after resume please")
    until(on_screen("Resumed answer."), "the resumed reply")
    typed("/quit")
    wait_screen(term, r"local run of HGR-\d+ finished", 60)
    assert term.process.wait(30) == 0
    type_like_a_person(other, "/quit", "/quit")
    assert other.process.wait(60) == 0
    messages = hub.messages(run["id"])

    assert [(m["type"], m.get("tool"), m["content"]) for m in messages] == [
        ("user_input", None, "RUN: echo hi > marker.txt"),
        ("tool_use", "run_shell_command", ""),
        ("tool_result", "run_shell_command", ""),
        ("final", None, "Done: the command ran."),
        ("user_input", None, "/stats model"),
        ("user_input", None, "second question"),
        ("final", None, "Second answer."),
        ("user_input", None, "fail please"),
        ("error", None, "400 the fake model refuses"),
        ("user_input", None, "after resume please"),
        ("final", None, "Resumed answer."),
    ], diagnose()
    assert [m["sourceKey"] for m in messages[:3]] == [m["sourceKey"] for m in first[:3]]
    assert messages[1]["input"]["input"]["command"] == "echo hi > marker.txt"
    assert "Exit Code: 0" in messages[2]["output"]
    assert messages[4]["input"]["command"] is True
    sessions = [m["input"]["session_id"] for m in messages]
    cleared = sessions[5]
    assert sessions == [ours] * 5 + [cleared] * 4 + [ours] * 2 and cleared != ours
    assert all(m["source"] == "qwen-chat" for m in messages)
    files = chats(hub)
    assert len(files) == 3 and any("elsewhere" in text for text in files.values())
    assert "elsewhere" not in files[ours] + files[cleared]
    text = json.dumps(messages)
    assert "elsewhere" not in text and "other terminal" not in text
    assert "/about" not in text and "/clear" not in text and "/quit" not in text
    assert issue["key"] not in " ".join(str(m.get("content")) for m in messages)
    turns = [r for r in hub.sandbox.requests() if r.get("kind") == "turn"]
    assert issue["key"] in json.dumps(turns[0]["body"]["messages"][0])  # the system prompt
    assert records(hub) == []  # Qwen removed its process record; hangar left nothing
    final_run = hub.ok("GET", f"/api/local-runs/{run['id']}")
    assert (final_run["status"], final_run["exitCode"]) == ("completed", 0)
    assert final_run["usage"][0]["provider"] == "qwen"

    again = hub.hangar_run(issue["key"], ["qwen", "--resume", ours, "--yolo"], env)
    second = wait_until(lambda: [r for r in hub.runs(issue["key"]) if r["id"] != run["id"]], 60,
                        "the second run")[0]  # fmt: skip
    wait_screen(again, "Type your message", 120)
    type_like_a_person(again, "once more", "once more")
    wait_screen(again, r"Resumed again\.", 90)
    type_like_a_person(again, "/quit", "/quit")
    wait_screen(again, r"local run of HGR-\d+ finished", 60)
    resumed = hub.messages(second["id"])
    assert [(m["type"], m["content"]) for m in resumed] == [
        ("user_input", "once more"),
        ("final", "Resumed again."),
    ]  # the session from its end: nothing of the first run again
    assert {m["input"]["session_id"] for m in resumed} == {ours}
