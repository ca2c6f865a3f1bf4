"""The NDJSON event stream: every kind of bad line is skipped, counted and explained; every
valid event arrives once, in order."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from hangar.localrun.plugins.event_stream import EventReader
from hangar.localrun.plugins.events import HandoffReadyEvent, event_schema
from hangar.localrun.plugins.run_log import RunLog
from hangar.model.run_messages import RunMessage, UsageEntry


class Collect:
    """An :class:`~hangar.localrun.plugins.event_stream.EventHandler` that keeps everything."""

    def __init__(self) -> None:
        self.messages: list[RunMessage] = []
        self.increments: list[UsageEntry] = []
        self.sessions: list[str] = []
        self.handoffs: list[HandoffReadyEvent] = []

    def message(self, message: RunMessage) -> None:
        self.messages.append(message)

    def usage(self, entry: UsageEntry) -> None:
        self.increments.append(entry)

    def session(self, session_id: str) -> None:
        self.sessions.append(session_id)

    def handoff(self, event: HandoffReadyEvent) -> None:
        self.handoffs.append(event)


def text(key: str, content: str = "hi") -> bytes:
    return json.dumps(
        {"type": "text", "source": "s", "source_key": key, "content": content}
    ).encode()


def read(tmp_path: Path, chunks: list[bytes], allow_handoff: bool = False) -> tuple[Any, ...]:
    """Feed ``chunks`` through a real pipe into an :class:`EventReader`."""
    collect = Collect()
    log = RunLog(tmp_path / "run.log")
    reader = EventReader(collect, log, provider="p", allow_handoff=allow_handoff)
    read_fd, write_fd = os.pipe()

    def writer() -> None:
        for chunk in chunks:
            os.write(write_fd, chunk)
        os.close(write_fd)

    thread = threading.Thread(target=writer)
    thread.start()
    reader.read_fd(read_fd, threading.Event())
    thread.join()
    os.close(read_fd)
    log.close()
    return collect, reader.stats, (tmp_path / "run.log").read_text()


def test_garbage_half_lines_and_huge_lines_are_skipped_not_fatal(tmp_path: Path) -> None:
    """Bad input: garbage, wrong types, unknown types, invalid UTF-8, a 10 MB line, a line
    split across writes, a last line without newline — valid events all arrive, in order."""
    big = (
        b'{"type": "text", "source": "s", "source_key": "big", "content": "'
        + b"x" * (10 * 1024 * 1024)
        + b'"}\n'
    )
    chunks = [
        text("1") + b"\n",
        b"this is not json\n",
        b"\n   \n",
        b'{"type": "event", "source": "s", "source_key": "k"}\n',
        b'{"type": "text", "source": "s", "source_key": 7, "content": "x"}\n',
        b'["a list"]\n',
        b'{"type": "text", "source": "s", "source_key": "u", "content": "\xff\xfe"}\n',
        big[: 3 * 1024 * 1024],
        big[3 * 1024 * 1024 :],
        text("2")[:10],
        text("2")[10:] + b"\n",
        b'{"type": "tool_use", "source": "s", "source_key": "t1", "tool": "Bash",'
        b' "input": {"command": "ls"}, "future_field": 1}\n',
        text("3"),  # no newline at the end
    ]
    collect, stats, log = read(tmp_path, chunks)
    assert [m.source_key for m in collect.messages] == ["1", "2", "t1", "3"]
    assert collect.messages[2].tool == "Bash" and collect.messages[2].input == {"command": "ls"}
    assert stats.invalid == 6
    assert stats.first_invalid.startswith("line 2: not JSON")
    assert "Invalid value 'event' - at `$.type` (known types: text," in log
    assert "Expected `str`, got `int` - at `$.source_key`" in log
    assert "Expected `object`, got `array`" in log
    assert "longer than 8388608 bytes" in log
    assert "it starts 'this is not json'" in log


def test_repeated_keys_are_stored_once_and_noted(tmp_path: Path) -> None:
    """LR-159: a repeated (source, source_key) — and a repeated usage key — count once."""
    usage = b'{"type": "usage", "source_key": "u1", "model": "m", "input_tokens": 3}\n'
    chunks = [text("a") + b"\n", text("a", "changed") + b"\n", usage, usage, text("b") + b"\n"]
    collect, stats, log = read(tmp_path, chunks)
    assert [(m.source_key, m.content) for m in collect.messages] == [("a", "hi"), ("b", "hi")]
    assert [u.input_tokens for u in collect.increments] == [3]
    assert collect.increments[0].provider == "p"  # the plugin's name unless the event names one
    assert stats.duplicates == 2 and stats.first_duplicate == "line 2: s a"
    assert "repeats an earlier source_key; stored once" in log
    assert stats.problems() == [
        "2 repeated source_keys stored once (first: line 2: s a)",
    ]


def test_session_and_handoff_events(tmp_path: Path) -> None:
    """LR-148: handoff_ready only where the protocol has it (v2 + native_plan_handoff)."""
    handoff = b'{"type": "handoff_ready", "handoff_id": "h1", "plan_source_key": "p"}\n'
    session = b'{"type": "session", "session_id": "S-1"}\n'
    collect, stats, _ = read(tmp_path, [session, handoff])
    assert collect.sessions == ["S-1"] and collect.handoffs == []
    assert stats.invalid == 1 and "needs protocol v2" in (stats.first_invalid or "")
    collect, stats, _ = read(tmp_path, [session, handoff], allow_handoff=True)
    assert [h.handoff_id for h in collect.handoffs] == ["h1"] and stats.invalid == 0


@pytest.mark.parametrize(
    "line",
    [
        b'{"type": "text", "source": "s", "source_key": "", "content": "x"}',
        b'{"type": "text", "source": "s", "source_key": "k", "content": ""}',
        b'{"type": "text", "source": "' + b"s" * 101 + b'", "source_key": "k", "content": "x"}',
        b'{"type": "tool_result", "source": "s", "source_key": "k"}',
        b'{"type": "usage", "source_key": "u", "model": "m", "input_tokens": -1}',
        b'{"type": "handoff_ready", "handoff_id": ""}',
        b'{"type": "text", "source": "s", "source_key": "k", "content": "x", "input": []}',
    ],
)
def test_limits_and_required_fields(tmp_path: Path, line: bytes) -> None:
    collect, stats, _ = read(tmp_path, [line + b"\n"], allow_handoff=True)
    assert stats.invalid == 1 and not collect.messages and not collect.increments


def test_the_event_schema_names_every_type() -> None:
    schema = event_schema()
    names = {ref["$ref"].rsplit("/", 1)[-1] for ref in schema["anyOf"]}
    tags = {schema["$defs"][name]["properties"]["type"]["enum"][0] for name in names}
    assert tags == {
        "text", "thinking", "user_input", "final", "error", "tool_use", "tool_result",
        "usage", "session", "handoff_ready",
    }  # fmt: skip
