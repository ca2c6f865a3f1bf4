"""The Gemini provider's flags and its chat-file mapping, on records shaped as Gemini CLI 0.61
writes them (a turn's tool calls appended to the model record that announced them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hangar.errors import UsageError
from hangar.localrun.providers.gemini import GeminiProvider
from hangar.localrun.providers.gemini_events import GeminiSessionFile

SESSION = "0b5c6a52-3f0e-4d53-9a55-6f1d2e3c4b5a"


def write(path: Path, *records: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record) + "\n")


def kinds(chat: GeminiSessionFile, ended: bool = False) -> list[tuple[str, str]]:
    return [(m.type, m.content) for m in chat.read(ended=ended).messages]


def test_the_reply_before_an_appended_tool_call_is_text_and_the_last_is_final(
    tmp_path: Path,
) -> None:
    chats = tmp_path / "tmp" / "work" / "chats"
    chats.mkdir(parents=True)
    other = chats / "session-2026-01-01T00-00-ffffffff.jsonl"
    write(other, {"sessionId": "ffffffff-0000-0000-0000-000000000000"})
    path = chats / f"session-2026-01-01T00-01-{SESSION[:8]}.jsonl"
    chat = GeminiSessionFile(tmp_path / "tmp", SESSION, from_end=False)
    assert kinds(chat) == []  # not written yet; the other session's file is not it
    write(path, {"sessionId": SESSION, "startTime": "t"},
          {"id": "u1", "type": "user", "content": [{"text": "list files"}]},
          {"id": "g1", "type": "gemini", "content": "Let me look."})  # fmt: skip
    assert kinds(chat) == [("user_input", "list files")]  # the reply may still call a tool
    response = {"functionResponse": {"id": "c1", "response": {"output": "a.txt"}}}
    call = {"id": "c1", "name": "run_shell_command", "args": {"command": "ls"},
            "status": "success", "result": [response]}  # fmt: skip
    write(path, {"id": "g1", "type": "gemini", "content": "Let me look.", "toolCalls": [call]},
          {"id": "u2", "type": "user", "content": [{"functionResponse": {"id": "c1"}}]},
          {"id": "g2", "type": "gemini", "content": "One file.",
           "tokens": {"input": 5, "output": 2}})  # fmt: skip
    assert kinds(chat) == [("text", "Let me look."), ("tool_use", ""), ("tool_result", "")]
    write(path, {"id": "u3", "type": "user", "content": [{"text": "/model"}]},
          {"id": "g3", "type": "gemini", "content": "Model dialog."})  # fmt: skip
    assert kinds(chat) == [("final", "One file.")]  # a bare slash command: no input, no final
    assert kinds(chat, ended=True) == [("text", "Model dialog.")]


def test_a_resumed_session_is_read_from_its_end(tmp_path: Path) -> None:
    chats = tmp_path / "tmp" / "p" / "chats"
    chats.mkdir(parents=True)
    path = chats / f"session-x-{SESSION[:8]}.jsonl"
    write(path, {"sessionId": SESSION}, {"id": "u1", "type": "user", "content": "old"})
    chat = GeminiSessionFile(tmp_path / "tmp", SESSION, from_end=True)
    assert kinds(chat) == []
    write(path, {"id": "u2", "type": "user", "content": "new"},
          {"id": "e1", "type": "error", "content": "quota"})  # fmt: skip
    assert kinds(chat) == [("user_input", "new"), ("error", "quota")]


@pytest.mark.parametrize(
    "args",
    [["gemini", "-p", "hi"], ["gemini", "--acp"], ["gemini", "--resume"],
     ["gemini", "--resume", "latest"], ["gemini", "-r", "3"], ["gemini", "--session-id", "x"],
     ["gemini", "mcp", "list"], ["gemini", "--session-file", "s.json"]],
)  # fmt: skip
def test_flags_hangar_cannot_follow_are_refused(args: list[str]) -> None:
    with pytest.raises(UsageError):
        GeminiProvider.validate(object.__new__(GeminiProvider), args)
    GeminiProvider.validate(object.__new__(GeminiProvider), ["gemini", "--resume", SESSION])
