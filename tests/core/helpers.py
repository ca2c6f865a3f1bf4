"""Helpers for core tests: build stores over test homes, parse files, render JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from hangar.agents.base import AgentStore, SessionSource
from hangar.agents.homes import AgentHome
from hangar.agents.registry import store_classes
from hangar.transcripts.engine import TranscriptEngine, parse_all
from hangar.transcripts.tail import TurnTables


def store(runtime: str, root: Path) -> AgentStore:
    return store_classes()[runtime](AgentHome(runtime, root, None))


def source(runtime: str, path: Path) -> SessionSource:
    return SessionSource(runtime, path.stem, path, {})


def parse_file(runtime: str, path: Path) -> tuple[list[Any], dict[str, Any]]:
    """Messages and summary of one file, as JSON-ready builtins."""
    messages, summary = parse_all(store(runtime, path.parent), source(runtime, path))
    for position, message in enumerate(messages):
        assert message.index == position
    return msgspec.to_builtins(messages), {
        "title": summary.title,
        "status": summary.status,
        "messageCount": summary.message_count,
        "checklist": msgspec.to_builtins(summary.checklist),
        "skipped": dict(sorted(summary.skipped.items())),
    }


def line(obj: object) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def check_every_tail(runtime: str, path: Path, tables: TurnTables | None = None) -> int:
    """For every page size, a tail-first open equals the full parse from its base on (the
    same checklist and context usage too); returns how many opens were tail-first."""
    tables = tables if tables is not None else TurnTables()
    agent = store(runtime, path.parent)
    full = TranscriptEngine(tables=tables).read("k", agent, source(runtime, path))
    expected = msgspec.to_builtins(full.messages)
    tails = 0
    for limit in range(1, full.total + 1):
        engine = TranscriptEngine(tables=tables)
        entry = engine.read("k", agent, source(runtime, path), tail_messages=limit)
        assert entry.base <= max(0, full.total - limit)
        assert msgspec.to_builtins(entry.messages) == expected[entry.base :], (limit, entry.base)
        assert entry.summary.checklist == full.summary.checklist
        assert entry.summary.context_usage == full.summary.context_usage
        tails += engine.stats.tail_parses
    return tails
