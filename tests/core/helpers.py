"""Helpers for core tests: build stores over test homes, parse files, render JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from hangar.agents.base import AgentStore, SessionSource
from hangar.agents.homes import AgentHome
from hangar.agents.registry import store_classes
from hangar.transcripts.engine import parse_all


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
