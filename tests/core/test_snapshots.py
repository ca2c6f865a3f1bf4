"""Snapshot tests of normalized transcripts over public fixtures (read from ../shared).

Regenerate with ``HANGAR_UPDATE_SNAPSHOTS=1``; the fixture files are never copied here.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from .helpers import parse_file

SNAPSHOTS = Path(__file__).resolve().parents[1] / "snapshots"
ROLLOUT = "codex/codemie-code/rollout-2026-05-11T{}.jsonl"
CASES = [
    ("codex", ROLLOUT.format("11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799")),
    ("codex", ROLLOUT.format("13-28-45-019e1695-0522-7c83-8b39-0dd379793f80")),
    ("codex", "codex/agent-sessions/small.jsonl"),
    ("codex", "codex/agent-sessions/large.jsonl"),
    ("claude", "claude/codemie-code/incremental-subagents/turn-2.jsonl"),
    ("claude", "claude/claude-code-log/todowrite_examples.jsonl"),
    ("claude", "claude/agent-sessions/small.jsonl"),
    ("claude", "claude/codemie-code/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"),
]  # fmt: skip


def _name(relative: str) -> str:
    return relative.replace("/", "__").removesuffix(".jsonl") + ".json"


LONG = 240


def abbreviated(data: Any) -> Any:
    """Long strings kept as head, length, digest and tail: the snapshot still changes when
    any character does, without repeating the fixture's text in the project."""
    if isinstance(data, str) and len(data) > LONG:
        digest = hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        return f"{data[:120]}…[{len(data)} chars, sha256 {digest}]…{data[-60:]}"
    if isinstance(data, list):
        return [abbreviated(item) for item in data]
    if isinstance(data, dict):
        return {key: abbreviated(value) for key, value in data.items()}
    return data


def check_snapshot(name: str, data: object) -> None:
    path = SNAPSHOTS / name
    text = json.dumps(abbreviated(data), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get("HANGAR_UPDATE_SNAPSHOTS") == "1" or not path.exists():
        if os.environ.get("HANGAR_UPDATE_SNAPSHOTS") != "1":
            pytest.fail(f"missing snapshot {name}; run with HANGAR_UPDATE_SNAPSHOTS=1")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
        return
    assert json.loads(path.read_text("utf-8")) == json.loads(text)


@pytest.mark.parametrize(("runtime", "relative"), CASES, ids=[_name(c[1]) for c in CASES])
def test_normalized_transcript_snapshot(public_fixtures: Path, runtime: str, relative: str) -> None:
    """RW-066, RW-073, RW-227, RW-228, RW-230: the normalized transcript of a real fixture is
    stable."""
    messages, summary = parse_file(runtime, public_fixtures / relative)
    check_snapshot(_name(relative), {"summary": summary, "messages": messages})
