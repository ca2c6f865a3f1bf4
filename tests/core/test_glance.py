"""Never-seen files: a glance shows the last turns from the file's last bytes, before the
rest is read; its indexes settle with the next read, which is exact (DESIGN §7)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from hangar.model import Message
from hangar.transcripts import glance as glance_module
from hangar.transcripts.engine import TranscriptEngine
from hangar.transcripts.tail import TurnTables

from .helpers import line, source, store
from .sessions import WRITERS
from .test_transcript_engine import codex_turn


def claude_turn(n: int, output: str) -> bytes:
    base = {"sessionId": "s", "cwd": "/w", "isSidechain": False}
    return b"".join(
        [
            line({**base, "type": "user", "uuid": f"u{n}", "message": {"role": "user",
                  "content": f"request {n}"}}),
            line({**base, "type": "assistant", "uuid": f"a{n}", "message": {"id": f"m{n}",
                  "role": "assistant", "model": "claude-x", "content": [{"type": "tool_use",
                  "id": f"t{n}", "name": "Bash", "input": {"command": "ls"}}],
                  "usage": {"input_tokens": n, "output_tokens": 1}}}),
            line({**base, "type": "user", "uuid": f"r{n}", "message": {"role": "user",
                  "content": [{"type": "tool_result", "tool_use_id": f"t{n}",
                               "content": output}]}}),
            line({**base, "type": "assistant", "uuid": f"f{n}", "message": {"id": f"z{n}",
                  "role": "assistant", "content": [{"type": "text", "text": f"answer {n}"}]}}),
        ]
    )  # fmt: skip


def write(tmp_path: Path, runtime: str, turns: int, output: str) -> Path:
    path = tmp_path / "session.jsonl"
    if runtime == "codex":
        path.write_bytes(b"".join(codex_turn(n, output=output) for n in range(1, turns + 1)))
    else:
        path.write_bytes(b"".join(claude_turn(n, output) for n in range(1, turns + 1)))
    return path


def unindexed(messages: list[Message]) -> list[object]:
    return [msgspec.to_builtins(msgspec.structs.replace(m, index=0)) for m in messages]


@pytest.mark.parametrize("runtime", ["codex", "claude"])
def test_a_glance_reads_the_end_and_settles_to_the_same_page(tmp_path: Path, runtime: str) -> None:
    """The first content of a 5 MB file comes from its last megabyte; the exact page read
    next has the same messages, now with their final indexes."""
    path = write(tmp_path, runtime, 250, "y" * 20_000)
    engine = TranscriptEngine(tables=TurnTables())
    agent = store(runtime, tmp_path)
    look = engine.glance("k", agent, source(runtime, path), 10)
    assert look is not None and not look.settled
    assert look.bytes_read <= glance_module.FIRST_WINDOW < path.stat().st_size / 4
    assert len(look.messages) >= 10
    assert [m.index for m in look.messages] == list(range(len(look.messages)))
    settled = engine.read("k", agent, source(runtime, path), tail_messages=10)
    assert settled.total == 500
    assert unindexed(look.messages) == unindexed(settled.messages[-len(look.messages) :])
    assert look.checklist == settled.summary.checklist
    assert look.context_usage == settled.summary.context_usage


def test_the_window_grows_until_it_holds_the_page(tmp_path: Path) -> None:
    path = write(tmp_path, "claude", 120, "y" * 40_000)
    agent = store("claude", tmp_path)
    look = glance_module.glance(agent, source("claude", path), 60)
    assert look is not None and not look.settled and len(look.messages) >= 60
    full = TranscriptEngine().read("k", agent, source("claude", path))
    assert unindexed(look.messages) == unindexed(full.messages[-len(look.messages) :])


def test_a_small_file_is_read_whole_and_settled(tmp_path: Path) -> None:
    path = write(tmp_path, "codex", 5, "ok")
    look = glance_module.glance(store("codex", tmp_path), source("codex", path), 4)
    assert look is not None and look.settled
    assert [m.index for m in look.messages] == [6, 7, 8, 9]


def test_a_known_file_glances_exactly(tmp_path: Path) -> None:
    """With a turn table the glance is the tail-first read: final indexes at once."""
    path = write(tmp_path, "codex", 250, "y" * 20_000)
    tables = TurnTables()
    agent = store("codex", tmp_path)
    TranscriptEngine(tables=tables).read("k", agent, source("codex", path))
    engine = TranscriptEngine(tables=tables)
    look = engine.glance("k", agent, source("codex", path), 4)
    assert look is not None and look.settled
    assert [m.index for m in look.messages] == [496, 497, 498, 499]
    assert engine.stats.tail_parses == 1 and engine.stats.full_parses == 0


@pytest.mark.parametrize("runtime", sorted(WRITERS))
def test_every_resumable_agent_glances(tmp_path: Path, runtime: str) -> None:
    path = WRITERS[runtime](tmp_path / "session.jsonl", 300, "z" * 8_000)
    agent = store(runtime, tmp_path)
    look = glance_module.glance(agent, source(runtime, path), 8)
    assert look is not None and not look.settled and len(look.messages) >= 8
    assert look.bytes_read < path.stat().st_size / 2


@pytest.mark.parametrize("runtime", ["continue", "opencode", "kiro"])
def test_rewritten_formats_have_no_glance(tmp_path: Path, runtime: str) -> None:
    path = tmp_path / "session.json"
    path.write_bytes(b"{}")
    assert glance_module.glance(store(runtime, tmp_path), source(runtime, path), 5) is None
