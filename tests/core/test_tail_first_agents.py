"""Tail-first opens for every agent whose format allows it (Copilot, Qwen, Gemini JSONL,
Cursor, besides Codex and Claude): through the resumable-projector protocol, every page
size of a known file equals the same slice of a full parse."""

from __future__ import annotations

import shutil
from pathlib import Path

import msgspec
import pytest

from hangar.agents.base import ResumableProjector
from hangar.transcripts.engine import TranscriptEngine
from hangar.transcripts.tail import TurnTables

from .helpers import check_every_tail, source, store
from .sessions import WRITERS

FIXTURES = {
    "copilot": ["copilot/agent-sessions/large.jsonl", "copilot/agent-sessions/small.jsonl"],
    "qwen": ["qwen/agent-sessions/019f0000-0000-7000-8000-000000000001.jsonl"],
    "gemini": ["gemini/agent-sessions/jsonl_v040.jsonl"],
    "cursor": ["cursor/agent-sessions/large.jsonl"],
}
NOT_RESUMABLE = {
    "continue": "one JSON document per session, rewritten whole",
    "opencode": "rows of a SQLite database (or a tree of JSON files)",
    "kiro": "SQLite rows and whole JSON documents",
}


@pytest.mark.parametrize("runtime", sorted(WRITERS))
def test_generated_sessions_open_tail_first(tmp_path: Path, runtime: str) -> None:
    """Every page size of a long session equals a full parse, reach-backs,
    rewinds, rewritten records and glued objects included."""
    path = WRITERS[runtime](tmp_path / "session.jsonl", 40, "output line\\n" * 20)
    assert check_every_tail(runtime, path) > 20


@pytest.mark.parametrize(
    "runtime,name", [(r, n) for r, names in sorted(FIXTURES.items()) for n in names]
)
def test_fixture_sessions_open_tail_first(
    public_fixtures: Path, tmp_path: Path, runtime: str, name: str
) -> None:
    """Real sessions of each format, every page size."""
    path = tmp_path / "session.jsonl"
    shutil.copyfile(public_fixtures / name, path)
    check_every_tail(runtime, path)


def test_a_reach_back_makes_earlier_boundaries_unusable(tmp_path: Path) -> None:
    """A late result for an earlier request: no resume starts between the two, and a tail
    that would has to start before the request the result belongs to."""
    path = WRITERS["copilot"](tmp_path / "session.jsonl", 11, "x")
    tables = TurnTables()
    agent = store("copilot", tmp_path)
    TranscriptEngine(tables=tables).read("k", agent, source("copilot", path))
    table = tables.get("k")
    assert table is not None
    clean = {m.number: m.clean for m in table.marks}
    # Request 11 (turn number 10) reaches back to the call of request 10 (turn 9), so the
    # boundary of request 11 may not be resumed at; the one of request 10 may.
    assert clean[9] is True and clean[10] is False
    engine = TranscriptEngine(tables=tables)
    entry = engine.read("k", agent, source("copilot", path), tail_messages=1)
    full = TranscriptEngine().read("k", agent, source("copilot", path))
    assert entry.base < table.marks[-1].first_index
    assert msgspec.to_builtins(entry.messages) == msgspec.to_builtins(full.messages)[entry.base :]


@pytest.mark.parametrize("runtime", sorted(NOT_RESUMABLE))
def test_formats_that_cannot_resume_say_so(runtime: str, tmp_path: Path) -> None:
    """Whole-document and database formats are re-read by signature, never resumed."""
    agent = store(runtime, tmp_path)
    assert not agent.append_only, NOT_RESUMABLE[runtime]


@pytest.mark.parametrize("runtime", ["codex", "claude", *sorted(WRITERS)])
def test_append_only_projectors_are_resumable(runtime: str, tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"")
    assert isinstance(
        store(runtime, tmp_path).new_projector(source(runtime, path)), ResumableProjector
    )
