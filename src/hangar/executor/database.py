"""``executor.db``: stdlib SQLite in WAL mode, numbered migrations, one writer.

Migrations are the files ``executor/migrations/NNNN_name.sql``, applied in order inside one
transaction each and recorded in ``schema_migrations``. All writes go through
:meth:`ExecutorDatabase.write`, which serialises them on one connection; readers use
:meth:`ExecutorDatabase.read` and never block the writer (WAL).
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from hangar.errors import DatabaseError
from hangar.private_files import create_private_file

_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


@dataclass(frozen=True)
class Migration:
    number: int
    name: str
    sql: str


def _migration_files() -> list[Path]:
    """The package's ``migrations`` folder, read as plain files (the package is installed
    unpacked; ``importlib.resources`` and the zipfile module it loads cost every command a
    few milliseconds)."""
    from hangar.executor import migrations

    return sorted(Path(migrations.__file__).parent.iterdir())


def _latest_number() -> int:
    """The highest migration number shipped, from the folder's names alone (a sixth of what
    :func:`_numbered_files` costs: every command opens an up-to-date database)."""
    folder = Path(__file__).with_name("migrations")
    names = [n for n in os.listdir(folder) if _MIGRATION_NAME.match(n)]  # noqa: PTH208 (no Paths)
    return int(max(names)[:4]) if names else 0


def _numbered_files() -> list[tuple[int, Path]]:
    """The migration files shipped in this package with their numbers, in order (their SQL
    is read only when needed: an up-to-date database is opened by every command)."""
    found: list[tuple[int, Path]] = []
    for entry in _migration_files():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry))
    found.sort()
    numbers = [number for number, _ in found]
    if numbers != list(range(1, len(found) + 1)):
        raise DatabaseError(path="executor migrations", problem=f"gap in numbering: {numbers}")
    return found


def _migration(number: int, entry: Path) -> Migration:
    return Migration(number, entry.name, entry.read_text("utf-8"))


def bundled_migrations() -> list[Migration]:
    """The migrations shipped in this package, in order."""
    return [_migration(number, entry) for number, entry in _numbered_files()]


def _connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    if readonly:
        conn = sqlite3.connect(
            f"file:{path}?mode=ro", uri=True, timeout=10, check_same_thread=False
        )
    else:
        conn = sqlite3.connect(path, timeout=10, check_same_thread=False, isolation_level=None)
    conn.row_factory = sqlite3.Row  # timeout=10 is SQLite's busy timeout (10000 ms)
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


class ExecutorDatabase:
    """The executor's database; open once per process."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            create_private_file(path)  # SQLite gives -wal/-shm the database's mode
            self._writer = _connect(path)
            mode = self._writer.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            self._writer.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.DatabaseError as exc:
            raise DatabaseError(path=str(path), problem=str(exc)) from None
        if str(mode).lower() != "wal":
            raise DatabaseError(path=str(path), problem=f"cannot enable WAL (got {mode})")
        self._lock = threading.RLock()
        self._local = threading.local()
        self.migrate()

    def migrate(self) -> list[int]:
        """Apply every migration not yet recorded; returns the numbers applied."""
        applied: list[int] = []
        with self._lock:
            try:
                self._writer.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations ("
                    " number INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                    " applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))"
                )
                done = {
                    row[0] for row in self._writer.execute("SELECT number FROM schema_migrations")
                }
                if done and len(done) == max(done) == _latest_number():
                    return applied  # up to date (numbers 1..n without a gap, n the newest)
                for number, entry in _numbered_files():
                    if number in done:
                        continue
                    migration = _migration(number, entry)
                    self._writer.execute("BEGIN IMMEDIATE")
                    try:
                        for statement in _split_sql(migration.sql):
                            self._writer.execute(statement)
                        self._writer.execute(
                            "INSERT INTO schema_migrations(number, name) VALUES (?, ?)",
                            (migration.number, migration.name),
                        )
                        self._writer.execute("COMMIT")
                    except BaseException:
                        self._writer.execute("ROLLBACK")
                        raise
                    applied.append(migration.number)
            except sqlite3.DatabaseError as exc:
                raise DatabaseError(
                    path=str(self.path), problem=f"migration failed: {exc}"
                ) from None
        return applied

    def schema_version(self) -> int:
        row = self._writer.execute("SELECT max(number) FROM schema_migrations").fetchone()
        return int(row[0] or 0)

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction on the single writer connection."""
        with self._lock:
            self._writer.execute("BEGIN IMMEDIATE")
            try:
                yield self._writer
            except BaseException:
                self._writer.execute("ROLLBACK")
                raise
            self._writer.execute("COMMIT")

    def read(self) -> sqlite3.Connection:
        """A read connection for the current thread (WAL: never blocks the writer)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = _connect(self.path)
            self._local.conn = conn
        return conn

    def close(self) -> None:
        with self._lock:
            self._writer.close()
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


def _split_sql(script: str) -> list[str]:
    """Split a migration into statements (``sqlite3.complete_statement`` boundaries)."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
