"""Tail-first opens: the first page of a known file reads only its last turns, with the
messages' final indexes (DESIGN §7), and always equals the same slice of a full parse."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from hangar.executor.service import Executor
from hangar.transcripts.engine import TranscriptEngine
from hangar.transcripts.table_store import MemoryTableStore
from hangar.transcripts.tail import TurnTables

from .helpers import check_every_tail, line, source, store
from .test_executor_tasks import write_rollout
from .test_transcript_engine import codex_turn

ROLLOUT = "rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"
VIEWER = "sample-project/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
REAL = {
    "codex": f"codex/codemie-code/{ROLLOUT}",
    "claude": "claude/codemie-code/session-624a4a58.jsonl",
    "claude-viewer": f"claude/claude-code-viewer/{VIEWER}",
}


@pytest.mark.parametrize("name", sorted(REAL))
def test_tail_equals_full_on_real_files(public_fixtures: Path, tmp_path: Path, name: str) -> None:
    """RW-073: tail-first opens of real Codex and Claude sessions, every page size."""
    runtime = name.split("-")[0]
    path = tmp_path / "session.jsonl"
    path.write_bytes((public_fixtures / REAL[name]).read_bytes())
    assert check_every_tail(runtime, path) > 0


def test_tail_reads_only_the_last_turns(tmp_path: Path) -> None:
    """DESIGN §7: a known file's first page reads a fraction of the bytes; its appends and
    an older page (which reads the whole file) stay equal to a full parse."""
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(codex_turn(n, output="y" * 5000) for n in range(1, 41)))
    tables = TurnTables()
    agent = store("codex", tmp_path)
    TranscriptEngine(tables=tables).read("k", agent, source("codex", path))
    engine = TranscriptEngine(tables=tables)
    entry = engine.read("k", agent, source("codex", path), tail_messages=4)
    assert engine.stats.tail_parses == 1 and engine.stats.full_parses == 0
    assert entry.base == 76 and [m.index for m in entry.messages] == [76, 77, 78, 79]
    assert engine.stats.bytes_read < path.stat().st_size / 10
    with path.open("ab") as handle:
        handle.write(codex_turn(41))
    grown = engine.read("k", agent, source("codex", path), tail_messages=4)
    assert engine.stats.appends == 1 and grown.total == 82
    older = engine.read("k", agent, source("codex", path), min_index=10)
    assert older.base == 0 and engine.stats.full_parses == 1
    fresh = TranscriptEngine().read("k", agent, source("codex", path))
    assert msgspec.to_builtins(older.messages) == msgspec.to_builtins(fresh.messages)


def test_rewritten_file_drops_its_table(tmp_path: Path) -> None:
    """RW-080: a table never applies to a rewritten file."""
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(codex_turn(n) for n in range(1, 11)))
    tables = TurnTables()
    agent = store("codex", tmp_path)
    TranscriptEngine(tables=tables).read("k", agent, source("codex", path))
    path.write_bytes(b"".join(codex_turn(n) for n in range(20, 26)))
    engine = TranscriptEngine(tables=tables)
    entry = engine.read("k", agent, source("codex", path), tail_messages=2)
    assert entry.base == 0 and engine.stats.tail_parses == 0
    assert entry.messages[0].content == "request 20"


def test_a_resumed_codex_read_keeps_what_earlier_turns_reported(tmp_path: Path) -> None:
    """The last turns alone name no model and report no tokens: a tail-first open gets the
    model, context window and context usage from the turn it resumed at (the stored carry),
    as a full parse does."""
    usage = line({"type": "event_msg", "payload": {"type": "token_count", "info": {
        "total_token_usage": {"total_tokens": 4200},
        "last_token_usage": {"input_tokens": 900, "output_tokens": 100, "total_tokens": 1000},
        "model_context_window": 272000}}})  # fmt: skip
    context = line({"type": "turn_context", "payload": {"turn_id": "t1", "model": "gpt-5"}})
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(
        context
        + codex_turn(1)
        + usage
        + b"".join(codex_turn(n, output="y" * 10_000) for n in range(2, 30))
    )  # past PERSIST_MIN_BYTES: the table is stored
    kept = MemoryTableStore()
    agent = store("codex", tmp_path)
    whole = TranscriptEngine(tables=TurnTables(store=kept)).read("k", agent, source("codex", path))
    assert kept.bodies  # the next engine reads the carries in their stored form
    engine = TranscriptEngine(tables=TurnTables(store=kept))
    entry = engine.read("k", agent, source("codex", path), tail_messages=2)
    assert engine.stats.tail_parses == 1 and entry.base == whole.total - 2
    assert entry.summary.context_usage is not None
    assert entry.summary.context_usage.total_tokens == 4200
    assert entry.summary.context_usage.model_context_window == 272000
    assert entry.summary.context_usage == whole.summary.context_usage
    assert entry.summary.model == whole.summary.model == "gpt-5"


def test_executor_serves_known_tasks_tail_first(isolated_home: Path) -> None:
    """DESIGN §7, RW-075: after indexing, a cold first page is tail-first with final indexes;
    paging up reads the whole file; every page equals a fresh full read."""
    path = write_rollout(isolated_home, turns=30)
    executor = Executor.open()
    task_id = executor.handle("runtime.tasks.list", {})["tasks"][0]["localTaskId"]
    assert executor.index_pending() == 1
    first = executor.handle("runtime.tasks.transcript", {"localTaskId": task_id, "limit": 5})
    assert executor.engine.stats.tail_parses == 1 and executor.engine.stats.full_parses == 0
    assert [m["index"] for m in first["messages"]] == [55, 56, 57, 58, 59]
    assert first["totalMessages"] == 60 and first["task"]["messageCount"] == 60
    assert executor.engine.stats.bytes_read < path.stat().st_size / 4
    older = executor.handle(
        "runtime.tasks.transcript",
        {"localTaskId": task_id, "limit": 5, "beforeCursor": first["beforeCursor"]},
    )
    assert [m["index"] for m in older["messages"]] == [50, 51, 52, 53, 54]
    assert executor.engine.stats.full_parses == 1
    fresh = Executor.open()
    fresh.handle("runtime.tasks.list", {})
    whole = fresh.handle("runtime.tasks.transcript", {"localTaskId": task_id, "limit": 60})
    assert whole["messages"][50:60] == older["messages"] + first["messages"]


def test_a_never_read_task_is_shown_from_its_end_first(isolated_home: Path) -> None:
    """DESIGN §7: the first look at a long task this device has not read yet comes from the
    file's last bytes, not settled (no cursor, indexes from its first message); the exact
    page that follows has the same messages at their final indexes, and from then on the
    first look is that exact page."""
    path = write_rollout(isolated_home, turns=2)
    path.write_bytes(
        path.read_bytes() + b"".join(codex_turn(n, output="z" * 40_000) for n in range(3, 80))
    )  # 3 MB: more than the glance's first window
    executor = Executor.open()
    task_id = executor.handle("runtime.tasks.list", {})["tasks"][0]["localTaskId"]
    look = executor.handle("runtime.tasks.glance", {"localTaskId": task_id, "limit": 6})
    assert look["settled"] is False and look["hasMore"] and "beforeCursor" not in look
    assert executor.engine.stats.full_parses == 0 and executor.engine.stats.bytes_read == 0
    assert look["totalMessages"] == len(look["messages"]) >= 6
    assert [m["index"] for m in look["messages"]] == list(range(len(look["messages"])))
    exact = executor.handle("runtime.tasks.transcript", {"localTaskId": task_id, "limit": 6})
    assert "settled" not in exact and exact["totalMessages"] == 158
    assert [m["index"] for m in exact["messages"]] == list(range(152, 158))

    def without_index(messages: list[dict[str, object]]) -> list[dict[str, object]]:
        return [{k: v for k, v in m.items() if k != "index"} for m in messages]

    assert without_index(look["messages"][-6:]) == without_index(exact["messages"])
    assert exact["messages"][-1]["content"] == "answer 79"
    again = executor.handle("runtime.tasks.glance", {"localTaskId": task_id, "limit": 6})
    assert again == exact
