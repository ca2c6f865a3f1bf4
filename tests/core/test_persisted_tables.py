"""Turn tables kept in ``executor.db``: the first open after a restart is tail-first, an
appended file reads its last turns and the new bytes only, and a table that no longer fits
its file (truncated, rewritten, same size with a new mtime, deleted, corrupt, stale) is
ignored and rebuilt, never used for a wrong page (DESIGN §7, RW-080)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from hangar.executor.database import ExecutorDatabase, bundled_migrations
from hangar.executor.service import Executor
from hangar.executor.turn_table_store import ExecutorTableStore
from hangar.transcripts import table_store
from hangar.transcripts.engine import TranscriptEngine
from hangar.transcripts.signature import sign
from hangar.transcripts.tail import TurnTable, TurnTables, decode_table, encode_table

from .helpers import line, source, store
from .test_executor_tasks import THREAD
from .test_transcript_engine import codex_turn

PAD = "y" * 6000  # each turn ~6 KB: 60 turns make a file worth persisting (> 256 KiB)


def rollout(path: Path, turns: range) -> Path:
    payload = {"id": THREAD, "cwd": "/tmp/proj", "cli_version": "0.171.0"}
    meta = line({"timestamp": "2026-05-11T08:00:00Z", "type": "session_meta", "payload": payload})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(meta + b"".join(codex_turn(n, output=PAD) for n in turns))
    return path


def home_rollout(home: Path, turns: int = 60) -> Path:
    folder = home / ".codex" / "sessions" / "2026" / "05" / "11"
    return rollout(folder / f"rollout-2026-05-11T11-26-55-{THREAD}.jsonl", range(1, turns + 1))


def full_messages(path: Path) -> list[object]:
    entry = TranscriptEngine().read("x", store("codex", path.parent), source("codex", path))
    return msgspec.to_builtins(entry.messages)  # type: ignore[no-any-return]


def open_tail(tables: TurnTables, path: Path, limit: int = 4) -> tuple[TranscriptEngine, object]:
    engine = TranscriptEngine(tables=tables)
    entry = engine.read(
        "k", store("codex", path.parent), source("codex", path), tail_messages=limit
    )
    return engine, entry


# -- through the executor and executor.db ---------------------------------------------


def first_page_after_restart(task_id: str) -> tuple[dict[str, Any], Executor]:
    """The first 5 messages of ``task_id`` from a new executor (closed again), with it."""
    restarted = Executor.open()
    try:
        page = restarted.handle("runtime.tasks.transcript", {"localTaskId": task_id, "limit": 5})
    finally:
        restarted.close()
    return page, restarted


def test_restart_opens_known_tasks_tail_first(isolated_home: Path) -> None:
    """DESIGN §7: a new executor (a restarted process) serves the first page of a task the
    previous one indexed from the stored turn table, reading only the last turns."""
    path = home_rollout(isolated_home)
    first = Executor.open()
    task_id = first.handle("runtime.tasks.list", {})["tasks"][0]["localTaskId"]
    assert first.index_pending() == 1
    assert first.turn_tables.stats.saved == 1
    first.close()

    page, restarted = first_page_after_restart(task_id)
    stats = restarted.engine.stats
    assert (stats.tail_parses, stats.full_parses) == (1, 0)
    assert restarted.turn_tables.stats.loaded == 1
    assert stats.bytes_read < path.stat().st_size / 10
    assert [m["index"] for m in page["messages"]] == [115, 116, 117, 118, 119]
    assert page["totalMessages"] == 120
    assert page["messages"] == full_messages(path)[115:]


def test_a_parallel_index_build_leaves_the_tables_a_restart_opens_from(
    isolated_home: Path,
) -> None:
    """A first search-index build parses big homes in worker processes: the tables those
    parses make are kept in executor.db like this process's own, so a session indexed that
    way opens tail-first after a restart too."""
    path = home_rollout(isolated_home)
    first = Executor.open()
    task_id = first.handle("runtime.tasks.list", {})["tasks"][0]["localTaskId"]
    progress = first.search.indexer.sync(workers=2, parallel_min_bytes=0)
    assert progress.tasks_done == 1 and first.search.indexer.stats.full_parses == 1
    assert first.index_pending() == 0  # the build told the list; nothing parsed here
    assert first.turn_tables.stats.saved == 1
    first.close()

    page, restarted = first_page_after_restart(task_id)
    stats = restarted.engine.stats
    assert (stats.tail_parses, stats.full_parses) == (1, 0)
    assert page["messages"] == full_messages(path)[115:]


def test_restart_after_an_append_reads_the_last_turns_and_the_new_bytes(
    isolated_home: Path,
) -> None:
    path = home_rollout(isolated_home)
    first = Executor.open()
    task_id = first.handle("runtime.tasks.list", {})["tasks"][0]["localTaskId"]
    first.index_pending()
    first.close()
    before = path.stat().st_size
    added = codex_turn(61, output=PAD) + codex_turn(62, output=PAD)
    with path.open("ab") as handle:
        handle.write(added)

    restarted = Executor.open()
    page = restarted.handle("runtime.tasks.transcript", {"localTaskId": task_id, "limit": 2})
    stats = restarted.engine.stats
    assert (stats.tail_parses, stats.full_parses) == (1, 0)
    one_turn = len(codex_turn(60, output=PAD))
    assert stats.bytes_read <= len(added) + 2 * one_turn
    assert page["totalMessages"] == 124 and before < path.stat().st_size
    assert page["messages"] == full_messages(path)[122:]


def test_a_deleted_file_drops_its_stored_table(isolated_home: Path) -> None:
    path = home_rollout(isolated_home)
    executor = Executor.open()
    task_id = executor.handle("runtime.tasks.list", {})["tasks"][0]["localTaskId"]
    executor.index_pending()
    tables = ExecutorTableStore(executor.db)
    assert tables.load_table(task_id) is not None
    path.unlink()
    page = executor.handle("runtime.tasks.transcript", {"localTaskId": task_id})
    assert page["task"]["status"] == "missing" and page["messages"] == []
    assert tables.load_table(task_id) is None


def test_migration_from_the_previous_executor_db(tmp_path: Path) -> None:
    """An executor.db of schema 4 (before stored turn tables) with tasks in it migrates to the
    latest schema and keeps its rows."""
    path = tmp_path / "executor.db"
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE schema_migrations (number INTEGER PRIMARY KEY, name TEXT NOT NULL,"
        " applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))"
    )
    for migration in bundled_migrations()[:4]:
        conn.executescript(migration.sql)
        conn.execute(
            "INSERT INTO schema_migrations(number, name) VALUES (?, ?)",
            (migration.number, migration.name),
        )
    conn.execute(
        "INSERT INTO local_tasks (local_task_id, runtime, session_key, runtime_handle,"
        " created_at, updated_at, message_count) VALUES ('t1', 'codex', 's1', '{}',"
        " '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 7)"
    )
    conn.commit()
    conn.close()

    db = ExecutorDatabase(path)
    assert db.schema_version() == bundled_migrations()[-1].number
    assert db.read().execute("SELECT message_count FROM local_tasks").fetchone()[0] == 7
    tables = ExecutorTableStore(db)
    assert tables.load_table("t1") is None
    tables.save_table("t1", b"body")
    tables.save_table("t1", b"newer")
    assert tables.load_table("t1") == b"newer"
    tables.delete_table("t1")
    assert tables.load_table("t1") is None
    db.close()


# -- the engine's checks, over a real executor.db store -------------------------------


@pytest.fixture
def db_store(tmp_path: Path) -> ExecutorTableStore:
    return ExecutorTableStore(ExecutorDatabase(tmp_path / "state" / "executor.db"))


def indexed(path: Path, db_store: ExecutorTableStore) -> TurnTable:
    """A full read by one process; returns the table it stored."""
    tables = TurnTables(store=db_store)
    TranscriptEngine(tables=tables).read("k", store("codex", path.parent), source("codex", path))
    body = db_store.load_table("k")
    assert body is not None
    table = decode_table(body)
    assert table is not None
    return table


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _replace(path: Path) -> None:
    other = rollout(path.with_name("other.jsonl"), range(100, 160))
    other.replace(path)


def _same_size_new_mtime(path: Path) -> None:
    data = bytearray(path.read_bytes())
    at = data.rindex(b"request 59")
    data[at : at + 10] = b"request XX"
    stat = path.stat()
    path.write_bytes(bytes(data))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


@pytest.mark.parametrize(
    "change",
    [_truncate, _replace, _same_size_new_mtime],
    ids=["truncated", "rewritten", "same-size-new-mtime"],
)
def test_a_changed_file_never_uses_its_table(
    tmp_path: Path, db_store: ExecutorTableStore, change: Callable[[Path], None]
) -> None:
    """RW-080: after a truncation, a rewrite, or the same size with a new mtime, a restarted
    process parses the file in full (never resuming from the old table) and stores a new
    table that fits the new file."""
    path = rollout(tmp_path / "s" / "rollout.jsonl", range(1, 61))
    indexed(path, db_store)
    change(path)
    tables = TurnTables(store=db_store)
    engine, entry = open_tail(tables, path)
    assert (engine.stats.tail_parses, engine.stats.full_parses) == (0, 1)
    assert msgspec.to_builtins(entry.messages) == full_messages(path)  # type: ignore[attr-defined]
    if path.stat().st_size >= 256 * 1024:
        body = db_store.load_table("k")
        assert body is not None
        stored = decode_table(body)
        assert stored is not None and stored.signature == sign(path)


def _garbage(body: bytes) -> bytes:
    return b"\x00not a table"


def _flipped_byte(body: bytes) -> bytes:
    spot = len(body) - 40
    return body[:spot] + bytes([body[spot] ^ 0x20]) + body[spot + 1 :]


def _other_version(body: bytes) -> bytes:
    return body.replace(table_store.__version__.encode(), b"0.0.0-other", 1)


def _inconsistent(body: bytes) -> bytes:
    table = decode_table(body)
    assert table is not None
    marks = tuple(reversed(table.marks))  # offsets no longer increase
    return encode_table(msgspec.structs.replace(table, marks=marks))


def _shifted_boundaries(body: bytes) -> bytes:
    # A stale table: its boundaries point a few bytes off their lines (as after a file
    # was cut and written again with the same head), digest and all intact.
    table = decode_table(body)
    assert table is not None
    marks = tuple(msgspec.structs.replace(m, offset=m.offset + 7) for m in table.marks)
    return encode_table(msgspec.structs.replace(table, marks=marks))


def _previous_format(body: bytes) -> bytes:
    # The same table as format 1 wrote it (JSON, same hangar version, digest intact).
    table = decode_table(body)
    assert table is not None and table_store.TABLE_FORMAT != 1
    payload = msgspec.json.encode(table)
    digest = hashlib.blake2b(payload, digest_size=16).hexdigest()
    return msgspec.json.encode([1, table_store.__version__, digest]) + b"\n" + payload


def _wrong_types(body: bytes) -> bytes:
    # Digest intact, but a mark holds a flag where its offset goes.
    table = decode_table(body)
    assert table is not None
    plain = msgspec.to_builtins(table)
    plain["marks"][-1][0] = True
    return table_store.encode_body(plain)


@pytest.mark.parametrize(
    "spoil",
    [
        _garbage,
        _flipped_byte,
        _other_version,
        _previous_format,
        _wrong_types,
        _inconsistent,
        _shifted_boundaries,
    ],
    ids=[
        "garbage",
        "flipped-byte",
        "other-version",
        "previous-format",
        "wrong-types",
        "inconsistent",
        "stale-offsets",
    ],
)
def test_a_corrupt_or_stale_row_is_ignored_and_rebuilt(
    tmp_path: Path, db_store: ExecutorTableStore, spoil: Callable[[bytes], bytes]
) -> None:
    """A stored table that does not decode, names another version, contradicts itself or
    points off its lines: the open is a full parse with the right messages, the row is
    replaced, and the next restart is tail-first again."""
    path = rollout(tmp_path / "s" / "rollout.jsonl", range(1, 61))
    indexed(path, db_store)
    body = db_store.load_table("k")
    assert body is not None
    db_store.save_table("k", spoil(body))

    tables = TurnTables(store=db_store)
    engine, entry = open_tail(tables, path)
    assert tables.stats.rejected == 1
    assert (engine.stats.tail_parses, engine.stats.full_parses) == (0, 1)
    assert msgspec.to_builtins(entry.messages) == full_messages(path)  # type: ignore[attr-defined]

    again, tail = open_tail(TurnTables(store=db_store), path)
    assert (again.stats.tail_parses, again.stats.full_parses) == (1, 0)
    expected = full_messages(path)[tail.base :]  # type: ignore[attr-defined]
    assert msgspec.to_builtins(tail.messages) == expected  # type: ignore[attr-defined]


def test_a_store_that_fails_never_fails_a_read(tmp_path: Path) -> None:
    """An unwritable executor.db keeps the table in memory: reads go on."""
    path = rollout(tmp_path / "s" / "rollout.jsonl", range(1, 61))
    db = ExecutorDatabase(tmp_path / "state" / "executor.db")
    db.close()  # every later statement fails
    tables = TurnTables(store=ExecutorTableStore(db))
    agent = store("codex", path.parent)
    entry = TranscriptEngine(tables=tables).read("k", agent, source("codex", path))
    assert entry.total == 120 and tables.stats.store_errors >= 1
    engine, _ = open_tail(tables, path)
    assert engine.stats.tail_parses == 1
