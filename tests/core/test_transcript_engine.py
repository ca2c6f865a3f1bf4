"""The transcript engine on real files: append path, rewrites, bad input, equality."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hangar.transcripts.engine import TranscriptEngine

from .helpers import line, source, store


def codex_turn(n: int, *, output: str = "ok") -> bytes:
    turn = f"t{n}"
    return b"".join(
        [
            line({"timestamp": f"2026-01-01T00:00:{n:02d}Z", "type": "event_msg",
                  "payload": {"type": "task_started", "turn_id": turn}}),
            line({"type": "response_item", "payload": {"type": "message", "role": "user",
                  "content": [{"type": "input_text", "text": f"request {n}"}]}}),
            line({"type": "response_item", "payload": {"type": "reasoning",
                  "summary": [{"type": "summary_text", "text": f"thinking {n}"}]}}),
            line({"type": "response_item", "payload": {"type": "function_call",
                  "name": "exec_command", "arguments": '{"cmd":"ls"}', "call_id": f"c{n}"}}),
            line({"type": "response_item", "payload": {"type": "function_call_output",
                  "call_id": f"c{n}", "output": output}}),
            line({"type": "response_item", "payload": {"type": "message", "role": "assistant",
                  "content": [{"type": "output_text", "text": f"answer {n}"}]}}),
            line({"type": "event_msg", "payload": {"type": "task_complete", "turn_id": turn}}),
        ]
    )  # fmt: skip


def full(path: Path) -> list[object]:
    engine = TranscriptEngine()
    entry = engine.read("k", store("codex", path.parent), source("codex", path))
    return msgspec.to_builtins(entry.messages)  # type: ignore[no-any-return]


def make(tmp_path: Path, data: bytes) -> tuple[TranscriptEngine, Path]:
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(data)
    return TranscriptEngine(), path


def read(engine: TranscriptEngine, path: Path) -> list[object]:
    entry = engine.read("k", store("codex", path.parent), source("codex", path))
    return msgspec.to_builtins(entry.messages)  # type: ignore[no-any-return]


def test_append_reads_only_new_bytes(tmp_path: Path) -> None:
    """RW-077, RW-078: an append reads only the new bytes; earlier turns keep their objects."""
    engine, path = make(tmp_path, codex_turn(1) + codex_turn(2))
    store_ = store("codex", tmp_path)
    first = engine.read("k", store_, source("codex", path))
    kept = list(first.messages)
    before = engine.stats.bytes_read
    extra = codex_turn(3)
    with path.open("ab") as handle:
        handle.write(extra)
    second = engine.read("k", store_, source("codex", path))
    assert engine.stats.bytes_read - before == len(extra)
    assert engine.stats.appends == 1 and engine.stats.full_parses == 1
    # Turn 1 is untouched; turn 2 (the previous last turn) re-renders, its status may change.
    assert all(a is b for a, b in zip(kept[:2], second.messages[:2], strict=True))
    assert msgspec.to_builtins(second.messages) == full(path)


def test_unchanged_refresh_reads_no_lines(tmp_path: Path) -> None:
    """RW-075, RW-076: switching back reads nothing; a refresh only signs the file."""
    engine, path = make(tmp_path, codex_turn(1))
    read(engine, path)
    before = engine.stats.bytes_read
    read(engine, path)
    engine.read("k", store("codex", tmp_path), source("codex", path), refresh=False)
    assert engine.stats.bytes_read == before
    assert engine.stats.full_parses == 1


def test_partial_last_line_waits_for_newline(tmp_path: Path) -> None:
    """RW-077: a partial last line is not fed until its newline arrives."""
    data = codex_turn(1) + codex_turn(2)
    cut = len(data) - 10
    engine, path = make(tmp_path, data[:cut])
    partial = read(engine, path)
    assert partial[-1]["status"] == "streaming"  # type: ignore[index]
    with path.open("ab") as handle:
        handle.write(data[cut:])
    assert read(engine, path) == full(path)
    assert engine.stats.full_parses == 1


def test_truncated_then_rewritten(tmp_path: Path) -> None:
    """RW-080: a truncated-then-rewritten file is parsed again from the start."""
    engine, path = make(tmp_path, codex_turn(1) + codex_turn(2))
    read(engine, path)
    with path.open("r+b") as handle:
        handle.truncate(0)
    path.write_bytes(codex_turn(5))  # same inode, new content
    assert read(engine, path) == full(path)
    assert engine.stats.full_parses == 2
    assert next(m["content"] for m in read(engine, path)) == "request 5"  # type: ignore[index]


def test_same_size_new_mtime_is_a_rewrite(tmp_path: Path) -> None:
    """RW-080: same length, new mtime → full re-parse (content may differ)."""
    engine, path = make(tmp_path, codex_turn(1, output="aaaa"))
    read(engine, path)
    path.write_bytes(codex_turn(1, output="bbbb"))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    messages = read(engine, path)
    assert engine.stats.full_parses == 2
    assert "bbbb" in str(messages)


def test_replaced_file_is_a_rewrite(tmp_path: Path) -> None:
    """RW-080: a file replaced by another (new inode) is parsed again."""
    engine, path = make(tmp_path, codex_turn(1))
    read(engine, path)
    other = tmp_path / "other.jsonl"
    other.write_bytes(codex_turn(1) + codex_turn(2))
    other.replace(path)
    assert read(engine, path) == full(path)
    assert engine.stats.full_parses == 2


def test_huge_line(tmp_path: Path) -> None:
    """DESIGN §6: a 20 MB line is read; its output is capped for display, marked truncated."""
    big = "x" * (20 * 1024 * 1024)
    engine, path = make(tmp_path, codex_turn(1, output=big))
    messages = read(engine, path)
    tool = messages[1]["blocks"][1]  # type: ignore[index]
    assert tool["type"] == "tool" and tool["truncated"] is True
    assert len(tool["output"]) == 64 * 1024


def test_invalid_utf8_and_non_object_lines(tmp_path: Path) -> None:
    """DESIGN §6: invalid UTF-8, arrays, numbers and unknown types are skipped and counted."""
    junk = b'{"type":"event_msg","payload":{"type":"agent_message","message":"\xff\xfe"}}\n'
    junk += b'[1, 2, 3]\n42\n"text"\n{not json\n'
    junk += line({"type": "brand_new_record", "payload": {}})
    junk += line({"type": "event_msg", "payload": {"type": "brand_new_event"}})
    engine, path = make(tmp_path, codex_turn(1) + junk + codex_turn(2))
    entry = engine.read("k", store("codex", tmp_path), source("codex", path))
    skipped = entry.summary.skipped
    assert skipped.get("invalid_record", 0) >= 3
    assert skipped.get("invalid_json", 0) >= 1
    assert skipped["brand_new_record"] == 1
    assert skipped["event_msg.brand_new_event"] == 1
    assert [m.content for m in entry.messages if m.role == "user"] == ["request 1", "request 2"]


def test_deleted_file_raises_file_not_found(tmp_path: Path) -> None:
    """A deleted source raises FileNotFoundError (the executor maps it to status missing)."""
    engine, path = make(tmp_path, codex_turn(1))
    read(engine, path)
    path.unlink()
    try:
        read(engine, path)
    except FileNotFoundError:
        return
    raise AssertionError("expected FileNotFoundError")


BASE = b"".join(codex_turn(n) for n in range(1, 4))
TAIL = b"".join(codex_turn(n) for n in range(4, 7))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    split=st.integers(min_value=0, max_value=len(BASE)),
    cuts=st.lists(st.integers(min_value=0, max_value=len(TAIL)), max_size=6),
)
def test_incremental_refresh_equals_full_parse(tmp_path: Path, split: int, cuts: list[int]) -> None:
    """RW-077..080 (property): any split point and any chunking of appended data give
    exactly the messages of one full parse, on the real engine with a real file."""
    data = BASE + TAIL
    path = tmp_path / f"prop-{split}-{len(cuts)}.jsonl"
    path.write_bytes(data[:split])
    engine = TranscriptEngine()
    store_ = store("codex", tmp_path)
    engine.read("k", store_, source("codex", path))
    position = split
    for cut in sorted({len(BASE) + c for c in cuts} | {len(data)}):
        if cut <= position:
            continue
        with path.open("ab") as handle:
            handle.write(data[position:cut])
        position = cut
        engine.read("k", store_, source("codex", path))
    incremental = engine.read("k", store_, source("codex", path))
    assert msgspec.to_builtins(incremental.messages) == full(path)
    assert (
        incremental.summary == TranscriptEngine().read("x", store_, source("codex", path)).summary
    )
    assert engine.stats.full_parses == 1  # every later read took the append path
    path.unlink()


def test_cached_read_not_blocked_by_another_parse(tmp_path: Path) -> None:
    """RW-075: while one task is being parsed, a cached read of another task is
    served at once (the parse holds only its own task's lock)."""
    import threading

    from hangar.agents.base import SessionSource, TranscriptProjector
    from hangar.agents.codex import CodexStore

    entered, release = threading.Event(), threading.Event()

    class GatedStore(CodexStore):
        """A real Codex store whose projector pauses on its first line (a slow parse)."""

        def new_projector(self, source: SessionSource) -> TranscriptProjector:
            projector = super().new_projector(source)
            feed = projector.feed

            def gated(line: bytes) -> None:
                entered.set()
                release.wait(timeout=30)
                feed(line)

            projector.feed = gated  # type: ignore[method-assign]
            return projector

    engine, path = make(tmp_path, codex_turn(1))
    other = tmp_path / "other.jsonl"
    other.write_bytes(codex_turn(2))
    read(engine, path)
    slow = GatedStore(store("codex", tmp_path).home)
    worker = threading.Thread(target=engine.read, args=("slow", slow, source("codex", other)))
    worker.start()
    results: list[object] = []

    def switch_back() -> None:
        cached = engine.read("k", store("codex", tmp_path), source("codex", path), refresh=False)
        fresh = engine.read("k", store("codex", tmp_path), source("codex", path))
        results.extend([cached.messages[0].content, fresh is cached])

    reader = threading.Thread(target=switch_back)
    try:
        assert entered.wait(timeout=30)
        reader.start()
        reader.join(timeout=10)  # the gate is still closed: this must not wait for it
        assert not reader.is_alive(), "a cached read waited for another task's parse"
        assert results == ["request 1", True]
    finally:
        release.set()
        worker.join(timeout=30)
        reader.join(timeout=30)
    assert engine.cached("slow") is not None
