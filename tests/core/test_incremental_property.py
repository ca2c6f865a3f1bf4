"""Property: for real transcripts cut at random byte offsets (mid-line too) and appended in
random chunks, the engine's incremental result equals one full parse (RW-077..080)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hangar.transcripts.engine import TranscriptEngine

from .helpers import source, store

ROLLOUT = "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
FILES = {
    "codex": f"codex/codemie-code/{ROLLOUT}",
    "claude": "claude/codemie-code/session-196820da.jsonl",
}
CHUNKS = st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=5)


@pytest.mark.parametrize("runtime", sorted(FILES))
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(cuts=CHUNKS)
def test_real_file_any_chunking_equals_full_parse(
    public_fixtures: Path, tmp_path: Path, runtime: str, cuts: list[float]
) -> None:
    """RW-077, RW-078, RW-080: incremental refresh of a real session equals a full parse."""
    data = (public_fixtures / FILES[runtime]).read_bytes()
    offsets = sorted({int(c * len(data)) for c in cuts} | {len(data)})
    folder = tmp_path / f"{runtime}-{abs(hash(tuple(cuts)))}"
    folder.mkdir()
    path = folder / "session.jsonl"
    path.write_bytes(b"")
    agent = store(runtime, folder)
    engine = TranscriptEngine()
    written = 0
    for offset in offsets:
        with path.open("ab") as handle:
            handle.write(data[written:offset])
        written = offset
        engine.read("k", agent, source(runtime, path))
    incremental = engine.read("k", agent, source(runtime, path))
    full = TranscriptEngine().read("k", agent, source(runtime, path))
    assert engine.stats.full_parses == 1
    assert msgspec.to_builtins(incremental.messages) == msgspec.to_builtins(full.messages)
    assert incremental.summary == full.summary
