"""The Qwen Code provider's flags and its chat mapping, on records shaped as Qwen Code 0.24.4
writes them (``projects/<project>/chats/ID.jsonl``, and ``sessions/PID.json`` for the live
process, rewritten when it moves to another session)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from hangar.errors import UsageError
from hangar.localrun.providers.base import IssueContext
from hangar.localrun.providers.qwen import QwenProvider
from hangar.localrun.providers.qwen_events import QwenSessions
from hangar.localrun.pty_runner import ScriptedPtyRunner

FIRST = "0b5c6a52-3f0e-4d53-9a55-6f1d2e3c4b5a"
SECOND = "7d1e2f30-0000-4c1a-8b2c-3d4e5f607182"
FOREIGN = "99999999-1111-4222-8333-444444444444"
OLD, NEW = "2020-01-01T00:00:00.000Z", "2999-01-01T00:00:00.000Z"
"""Record times before and after any process record written by the test (a switch)."""


def record(uuid: str, kind: str, session: str = FIRST, when: str = OLD, **fields: Any) -> dict:
    return {"uuid": uuid, "sessionId": session, "timestamp": when, "type": kind, **fields}


def user(uuid: str, text: str, **kw: Any) -> dict:
    return record(uuid, "user", message={"role": "user", "parts": [{"text": text}]}, **kw)


def reply(uuid: str, *parts: dict, **kw: Any) -> dict:
    usage = {"promptTokenCount": 11, "candidatesTokenCount": 7}
    message = {"role": "model", "parts": list(parts)}
    return record(uuid, "assistant", model="m", message=message, usageMetadata=usage, **kw)


def slash(uuid: str, typed: str, **kw: Any) -> dict:
    payload = {"phase": "invocation", "rawCommand": typed, "sentToModel": False}
    return record(uuid, "system", subtype="slash_command", systemPayload=payload, **kw)


def api_error(uuid: str, text: str, **kw: Any) -> dict:
    event = {"event.name": "qwen-code.api_error", "error_message": text, "status_code": 400}
    return record(uuid, "system", subtype="ui_telemetry", systemPayload={"uiEvent": event}, **kw)


def write(path: Path, *records: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        for one in records:
            handle.write(json.dumps(one) + "\n")


def process_record(home: Path, pid: int, session: str) -> None:
    """What Qwen writes for a live process (atomically, as it does)."""
    path = home / "sessions" / f"{pid}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_suffix(".tmp")
    temp.write_text(json.dumps({"schemaVersion": 1, "pid": pid, "sessionId": session}))
    temp.replace(path)


def chat(home: Path, session: str) -> Path:
    return home / "projects" / "-work" / "chats" / f"{session}.jsonl"


def seen(sessions: QwenSessions, ended: bool = False) -> list[tuple[str, str, str]]:
    return [
        (
            m.type,
            m.output if m.type == "tool_result" else m.content or m.tool or "",
            str(m.input.get("session_id")),
        )
        for m in sessions.read(ended=ended).messages
    ]


def test_turns_slash_commands_errors_and_the_sessions_the_process_moves_to(
    tmp_path: Path,
) -> None:
    """LR-164: a tool turn whose last reply is final once something is typed;
    a bare slash command is nothing, one with arguments a command; an API error; the process
    record's new session (`/clear`) is followed, and back in a resumed session only what is
    written after the switch is reported."""
    home = tmp_path / "qwen"
    sessions = QwenSessions(home, home, FIRST, from_end=False)
    sessions.started(os.getpid())
    assert seen(sessions) == []  # nothing written yet
    call = {"functionCall": {"id": "c1", "name": "run_shell_command", "args": {"command": "ls"}}}
    response = {"functionResponse": {"id": "c1", "response": {"output": "a.txt"}}}
    write(chat(home, FIRST), user("u1", "list files"), reply("a1", {"text": "Let me look."}, call),
          record("t1", "tool_result", message={"role": "user", "parts": [response]},
                 toolCallResult={"callId": "c1", "status": "success"}),
          reply("a2", {"text": "One file: a.txt"}))  # fmt: skip
    assert seen(sessions) == [
        ("user_input", "list files", FIRST),
        ("text", "Let me look.", FIRST),
        ("tool_use", "run_shell_command", FIRST),
        ("tool_result", "a.txt", FIRST),
    ]  # the last reply may still call a tool: not final yet
    write(chat(home, FIRST), slash("s1", "/about"), slash("s2", "/stats model"))
    final, command = sessions.read().messages
    assert (final.type, final.content) == ("final", "One file: a.txt")
    assert (command.type, command.content) == ("user_input", "/stats model")
    assert command.input["command"] is True and command.source_key.endswith(":message:s2:user")
    process_record(home, os.getpid(), FIRST)
    process_record(home, 1, FOREIGN)  # another Qwen, in another terminal: never bound
    write(chat(home, FOREIGN), user("x1", "not ours", session=FOREIGN))
    write(chat(home, FIRST), user("u2", "and now?"), reply("a3", {"text": "Still here."}))
    assert [m[0] for m in seen(sessions)] == ["user_input"]

    process_record(home, os.getpid(), SECOND)  # /clear: this process is in a new session
    write(chat(home, SECOND), user("u3", "fail please", session=SECOND, when=NEW),
          api_error("e1", "400 refused", session=SECOND, when=NEW))  # fmt: skip
    assert seen(sessions) == [
        ("final", "Still here.", FIRST),  # the session left: its turn is over
        ("user_input", "fail please", SECOND),
        ("error", "400 refused", SECOND),
    ]
    process_record(home, os.getpid(), FIRST)  # /resume FIRST
    write(
        chat(home, FIRST),
        user("u4", "back again", when=NEW),
        reply("a4", {"text": "Welcome back."}, when=NEW),
    )
    assert seen(sessions) == [("user_input", "back again", FIRST)]
    assert seen(sessions, ended=True) == [("final", "Welcome back.", FIRST)]
    assert "not ours" not in json.dumps(seen(sessions, ended=True))


def test_a_resumed_chat_written_before_the_switch_is_its_past(tmp_path: Path) -> None:
    """A switch noticed late: records written after the process record are still read."""
    home = tmp_path / "qwen"
    write(chat(home, SECOND), user("o1", "old question", session=SECOND, when=OLD),
          reply("o2", {"text": "old answer"}, session=SECOND, when=OLD))  # fmt: skip
    sessions = QwenSessions(home, home, FIRST, from_end=False)
    sessions.started(os.getpid())
    process_record(home, os.getpid(), FIRST)
    assert seen(sessions) == []
    process_record(home, os.getpid(), SECOND)
    write(chat(home, SECOND), user("n1", "typed fast", session=SECOND, when=NEW))
    assert seen(sessions) == [("user_input", "typed fast", SECOND)]


def test_a_record_of_the_session_from_another_process_is_not_followed(tmp_path: Path) -> None:
    """LR-173: the same session resumed in another terminal: its process record moving on
    (another pid, not the run's process or a descendant) moves nothing."""
    home = tmp_path / "qwen"
    sessions = QwenSessions(home, home, FIRST, from_end=False)
    sessions.started(os.getpid())
    process_record(home, 1, FIRST)
    write(chat(home, FIRST), user("u1", "hello"))
    assert seen(sessions) == [("user_input", "hello", FIRST)]
    process_record(home, 1, SECOND)
    write(chat(home, SECOND), user("x1", "elsewhere", session=SECOND, when=NEW))
    assert seen(sessions) == []
    write(chat(home, FIRST), user("u2", "still mine"))
    assert seen(sessions) == [("user_input", "still mine", FIRST)]


def provider() -> QwenProvider:
    return QwenProvider(ScriptedPtyRunner(lambda _c: 0), IssueContext("HGR-7", "Fix the thing"))


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["qwen", "-p", "hi"], "without its TUI"),
        (["qwen", "--prompt=hi"], "without its TUI"),
        (["qwen", "--acp"], "without its TUI"),
        (["qwen", "hello"], "one-shot"),
        (["qwen", "--model", "m", "--yolo", "hello"], "one-shot"),
        (["qwen", "--allowed-tools", "a", "b"], "one-shot"),
        (["qwen", "-c"], "follows exactly one session"),
        (["qwen", "--continue"], "follows exactly one session"),
        (["qwen", "--resume"], "follows exactly one session"),
        (["qwen", "--resume", "latest"], "follows exactly one session"),
        (["qwen", "--session-id", "x"], "needs a session id"),
        (["qwen", "--resume", FIRST, "--fork-session"], "new id"),
        (["qwen", "--chat-recording=false"], "chat recording"),
        (["qwen", "mcp", "list"], "runs no TUI"),
        (["qwen", "serve"], "runs no TUI"),
    ],
)
def test_forms_hangar_cannot_follow_are_refused(args: list[str], problem: str) -> None:
    """LR-186: headless modes, a one-shot prompt, a session Qwen would pick or rename."""
    with pytest.raises(UsageError, match=problem):
        provider().validate(args)


@pytest.mark.parametrize(
    "args",
    [["qwen"], ["qwen", "--yolo", "-m", "fake"], ["qwen", "-i", "do it"],
     ["qwen", "--resume", FIRST], ["qwen", "--allowed-tools=a,b", "--approval-mode", "plan"]],
)  # fmt: skip
def test_tui_forms_are_accepted(args: list[str]) -> None:
    provider().validate(args)


def test_a_new_session_is_named_and_the_issue_context_appended(tmp_path: Path) -> None:
    """LR-177: hangar names the session; the issue goes in as system prompt."""
    prepared = provider().prepare(["qwen", "--yolo"], tmp_path, {"HOME": str(tmp_path)}, False)
    argv = prepared.argv
    assert argv[:2] == ["qwen", "--session-id"] and argv[3] == "--yolo"
    assert prepared.reader.session_id == argv[2]
    assert argv[4] == "--append-system-prompt" and "HGR-7" in argv[5]
    given = ["qwen", "--resume", FIRST, "--append-system-prompt", "mine"]
    prepared = provider().prepare(given, tmp_path, {"HOME": str(tmp_path)}, False)
    assert prepared.argv == given and prepared.reader.session_id == FIRST
