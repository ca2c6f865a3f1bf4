"""The transcript engine's turn tables in ``executor.db`` (table ``transcript_turn_tables``).

An implementation of :class:`hangar.transcripts.table_store.TableStore` keyed by
``localTaskId``; the bodies are opaque here (the engine encodes and checks them). SQLite
errors become :class:`~hangar.transcripts.table_store.TableStoreError`, which the engine
answers by keeping the table in memory only.
"""

from __future__ import annotations

import sqlite3

from hangar.executor.database import ExecutorDatabase
from hangar.transcripts.table_store import TableStoreError


class ExecutorTableStore:
    def __init__(self, db: ExecutorDatabase) -> None:
        self.db = db

    def load_table(self, key: str) -> bytes | None:
        try:
            row = (
                self.db.read()
                .execute("SELECT body FROM transcript_turn_tables WHERE local_task_id = ?", (key,))
                .fetchone()
            )
        except sqlite3.Error as exc:
            raise TableStoreError(str(exc)) from None
        return bytes(row[0]) if row is not None else None

    def save_table(self, key: str, body: bytes) -> None:
        try:
            with self.db.write() as conn:
                conn.execute(
                    "INSERT INTO transcript_turn_tables (local_task_id, body) VALUES (?, ?)"
                    " ON CONFLICT (local_task_id) DO UPDATE SET body = excluded.body,"
                    " saved_at = strftime('%Y-%m-%dT%H:%M:%fZ','now')",
                    (key, body),
                )
        except sqlite3.Error as exc:
            raise TableStoreError(str(exc)) from None

    def delete_table(self, key: str) -> None:
        try:
            with self.db.write() as conn:
                conn.execute("DELETE FROM transcript_turn_tables WHERE local_task_id = ?", (key,))
        except sqlite3.Error as exc:
            raise TableStoreError(str(exc)) from None
