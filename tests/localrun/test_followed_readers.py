"""The Kiro and Antigravity session readers against what their stand-ins write (real SQLite,
real files, a real second process in the folder), without a terminal or a hub."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hangar.localrun.providers.agy import AgyReader
from hangar.localrun.providers.followed import Seen
from hangar.localrun.providers.kiro import KiroReader
from hangar.model.run_messages import RunMessage
from hangar.testing import kiro_standin


def messages(seen: list[Seen]) -> list[RunMessage]:
    return [m for s in seen for m in s.messages]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(work)
    return work


def foreign_turn(folder: Path, prompt: str, reader: KiroReader) -> list[RunMessage]:
    """Another `kiro-cli chat --no-interactive` in the folder, looked at as the follower does
    (every 50 ms) while it runs and once after."""
    argv = [sys.executable, "-m", "hangar.testing.kiro_standin", "chat", "--no-interactive",
            prompt]  # fmt: skip
    seen: list[Seen] = []
    with subprocess.Popen(argv, cwd=folder, start_new_session=True,
                          stdout=subprocess.DEVNULL) as other:  # fmt: skip
        while other.poll() is None:
            seen += reader.read()
            try:
                other.wait(0.05)
            except subprocess.TimeoutExpired:
                continue
    return messages(seen + reader.read())


def test_kiro_reader_never_takes_another_terminals_conversation_and_follows_clear(
    folder: Path,
) -> None:
    """LR-173: a conversation another kiro process writes into the folder's row is not read,
    before the run's CLI has written and after; `/clear` keeps the conversation id and its
    new entries get new keys (keys come from message ids, not positions)."""
    reader = KiroReader(kiro_standin.store_path(), folder, resume=False)
    reader.started(os.getsid(0))  # this process plays the run's CLI
    assert foreign_turn(folder, "hello from elsewhere", reader) == []

    own = kiro_standin.Conversation(resume=False)
    own.turn("first question")
    first = messages(reader.read())
    assert [(m.type, m.content) for m in first] == [
        ("user_input", "first question"),
        ("final", "You said: first question"),
    ]
    assert foreign_turn(folder, "elsewhere again", reader) == []

    own.history = []  # what /clear does
    own.turn("after clear")
    after = messages(reader.read())
    assert [(m.type, m.content) for m in after] == [
        ("user_input", "after clear"),
        ("final", "You said: after clear"),
    ]
    assert {m.input["session_id"] for m in first + after} == {own.id}
    keys = [m.source_key for m in first + after]
    assert len(set(keys)) == 4


def test_kiro_reader_resumed_conversation_skips_its_earlier_turns(folder: Path) -> None:
    before = kiro_standin.Conversation(resume=False)
    before.turn("yesterday")
    reader = KiroReader(kiro_standin.store_path(), folder, resume=True)
    reader.started(os.getsid(0))
    again = kiro_standin.Conversation(resume=True)
    again.turn("today")
    assert [(m.type, m.content) for m in messages(reader.read())] == [
        ("user_input", "today"),
        ("final", "You said: today"),
    ]


def test_agy_reader_follows_every_conversation_its_log_names(tmp_path: Path) -> None:
    """A new `Conversation ID:` in the run's own log is followed from its start, the earlier
    one stays followed; results are named after their call; ERROR_MESSAGE is an error."""
    log, brain = tmp_path / "agy.log", tmp_path / "brain"
    reader = AgyReader(log, brain)

    def steps(conversation: str, *lines: str) -> None:
        path = brain / conversation / ".system_generated" / "logs" / "transcript.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.writelines(line + "\n" for line in lines)

    log.write_text("Conversation ID: aaaaaaaa-1\n", encoding="utf-8")
    steps(
        "aaaaaaaa-1",
        '{"type": "USER_INPUT", "content": "<USER_REQUEST>\\nlist\\n</USER_REQUEST>"}',
        '{"type": "PLANNER_RESPONSE", "tool_calls": [{"name": "list_dir", "args": {}}]}',
        '{"type": "LIST_DIRECTORY", "content": "a.txt"}',
        '{"type": "ERROR_MESSAGE", "content": "quota exceeded"}',
    )
    first = messages(reader.read())
    assert [(m.type, m.tool) for m in first] == [
        ("user_input", None),
        ("tool_use", "list_dir"),
        ("tool_result", "list_dir"),
        ("error", None),
    ]
    with log.open("a", encoding="utf-8") as handle:
        handle.write("Conversation ID: bbbbbbbb-2\n")
    steps("bbbbbbbb-2", '{"type": "USER_INPUT", "content": "again"}')
    steps("aaaaaaaa-1", '{"type": "PLANNER_RESPONSE", "content": "late answer"}')
    later = messages(reader.read())
    assert sorted((m.input["session_id"], m.type, m.input["turnKey"]) for m in later) == [
        ("aaaaaaaa-1", "final", first[0].input["turnKey"]),
        ("bbbbbbbb-2", "user_input", "agy:conversation:bbbbbbbb-2:step-line:1"),
    ]
    assert reader.session_id == "bbbbbbbb-2"
