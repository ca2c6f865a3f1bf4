"""Every public Codex and Claude fixture parses without an exception."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import parse_file


@pytest.mark.parametrize("runtime", ["codex", "claude"])
def test_every_fixture_parses(public_fixtures: Path, runtime: str) -> None:
    """RW-066, RW-073: tolerant parsing of every real and synthetic file (DESIGN §6)."""
    files = sorted((public_fixtures / runtime).rglob("*.jsonl"))
    assert files
    total = 0
    for path in files:
        messages, summary = parse_file(runtime, path)
        assert summary["messageCount"] == len(messages)
        total += len(messages)
    assert total > 20
