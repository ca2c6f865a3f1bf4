"""Both databases migrate from blank, record their migrations and stay in shape."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from hangar.executor.database import ExecutorDatabase, bundled_migrations
from hangar.hub.store.database import current_revision, head_revision, open_hub_database
from hangar.hub.store.schema import metadata


def test_executor_db_migrates_a_blank_database(tmp_path: Path) -> None:
    path = tmp_path / "executor.db"
    db = ExecutorDatabase(path)
    latest = len(bundled_migrations())
    assert db.schema_version() == latest
    db.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    rows = conn.execute("SELECT number, name FROM schema_migrations ORDER BY number").fetchall()
    assert [r[0] for r in rows] == list(range(1, latest + 1))
    assert rows[0][1].startswith("0001_")
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "local_tasks" in tables
    conn.close()


def test_executor_db_search_index_keeps_its_build_settings(tmp_path: Path) -> None:
    """The FTS5 settings a large first build relies on (fewer, larger segments) are stored
    in the index itself, so every connection uses them."""
    db = ExecutorDatabase(tmp_path / "executor.db")
    settings = dict(db.read().execute("SELECT k, v FROM search_fts_config").fetchall())
    assert settings["hashsize"] == 16 * 1024 * 1024
    assert settings["automerge"] == 8
    db.close()


def test_executor_db_reopened_out_of_wal_mode_is_put_back(tmp_path: Path) -> None:
    """A database with every migration but another journal mode (copied, or opened by a tool
    that changed it) is not taken as current: the open puts it back in WAL mode."""
    path = tmp_path / "executor.db"
    ExecutorDatabase(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0] == "delete"
    conn.close()
    db = ExecutorDatabase(path)
    assert db.read().execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with db.write() as writer:
        writer.execute("INSERT INTO usage_files(cache_key, body) VALUES ('k', x'00')")
    db.close()


def test_executor_db_reopen_applies_nothing(tmp_path: Path) -> None:
    path = tmp_path / "executor.db"
    ExecutorDatabase(path).close()
    db = ExecutorDatabase(path)
    assert db.migrate() == []
    db.close()


def test_executor_writes_are_serialised_and_readable(tmp_path: Path) -> None:
    db = ExecutorDatabase(tmp_path / "executor.db")
    with db.write() as conn:
        conn.execute(
            "INSERT INTO local_tasks(local_task_id, runtime, session_key, runtime_handle,"
            " created_at, updated_at) VALUES ('t1', 'codex', 's1', '{}', 'a', 'b')"
        )
    assert db.read().execute("SELECT count(*) FROM local_tasks").fetchone()[0] == 1
    db.close()


def test_hub_db_migrates_a_blank_database_to_the_metadata(tmp_path: Path) -> None:
    engine = open_hub_database(tmp_path / "hub.db")
    assert current_revision(engine) == head_revision(engine)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    assert diff == [], f"migrations and hub/schema.py differ: {diff}"
    inspector = sa.inspect(engine)
    assert {"workspaces", "members", "alembic_version"} <= set(inspector.get_table_names())
    engine.dispose()


def test_status_creates_state_and_migrates(hangar_home: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hangar", "status", "--json"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        check=True,
    )
    data = json.loads(result.stdout)
    assert data["executorDb"]["schemaVersion"] == data["executorDb"]["latest"]
    assert data["hubDb"]["revision"] == data["hubDb"]["latest"]
    assert (hangar_home / "executor.db").exists()
    assert (hangar_home / "hub.db").exists()
    device = json.loads((hangar_home / "device.json").read_text())
    assert data["device"]["deviceId"] == device["deviceId"]
