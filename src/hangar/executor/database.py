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
    """The executor's database; open once per process.

    Opening an up-to-date database (WAL, every migration applied) costs one connection, the
    opening thread's reader: the writer connection is opened by the first write, so a command
    that only reads (``hangar tasks show``) never opens it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._local = threading.local()
        self._writer_conn: sqlite3.Connection | None = None
        self._closed = False
        try:
            create_private_file(path)  # SQLite gives -wal/-shm the database's mode
            conn = _connect(path)
            current = _is_current(conn)
        except sqlite3.DatabaseError as exc:
            raise DatabaseError(path=str(path), problem=str(exc)) from None
        if current:
            self._local.conn = conn
            return
        conn.close()
        self.migrate()

    @property
    def _writer(self) -> sqlite3.Connection:
        """The one writer connection, opened on first use (call with ``_lock`` held); after
        :meth:`close` it is gone for good, as a closed connection is."""
        if self._closed:
            raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
        if self._writer_conn is None:
            try:
                conn = _connect(self.path)
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                conn.execute("PRAGMA synchronous = NORMAL")
            except sqlite3.DatabaseError as exc:
                raise DatabaseError(path=str(self.path), problem=str(exc)) from None
            if str(mode).lower() != "wal":
                conn.close()
                raise DatabaseError(path=str(self.path), problem=f"cannot enable WAL (got {mode})")
            self._writer_conn = conn
        return self._writer_conn

    def migrate(self) -> list[int]:
        """Apply every migration not yet recorded; returns the numbers applied."""
        applied: list[int] = []
        with self._lock:
            writer = self._writer
            try:
                writer.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations ("
                    " number INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                    " applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))"
                )
                done = {row[0] for row in writer.execute("SELECT number FROM schema_migrations")}
                if _up_to_date(done):
                    return applied
                for number, entry in _numbered_files():
                    if number in done:
                        continue
                    migration = _migration(number, entry)
                    writer.execute("BEGIN IMMEDIATE")
                    try:
                        for statement in _split_sql(migration.sql):
                            writer.execute(statement)
                        writer.execute(
                            "INSERT INTO schema_migrations(number, name) VALUES (?, ?)",
                            (migration.number, migration.name),
                        )
                        writer.execute("COMMIT")
                    except BaseException:
                        writer.execute("ROLLBACK")
                        raise
                    applied.append(migration.number)
            except sqlite3.DatabaseError as exc:
                raise DatabaseError(
                    path=str(self.path), problem=f"migration failed: {exc}"
                ) from None
        return applied

    def schema_version(self) -> int:
        row = self.read().execute("SELECT max(number) FROM schema_migrations").fetchone()
        return int(row[0] or 0)

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction on the single writer connection."""
        with self._lock:
            writer = self._writer
            writer.execute("BEGIN IMMEDIATE")
            try:
                yield writer
            except BaseException:
                writer.execute("ROLLBACK")
                raise
            writer.execute("COMMIT")

    def read(self) -> sqlite3.Connection:
        """A read connection for the current thread (WAL: never blocks the writer)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = _connect(self.path)
            self._local.conn = conn
        return conn

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._writer_conn is not None:
                self._writer_conn.close()
                self._writer_conn = None
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


def _up_to_date(done: set[int]) -> bool:
    """Whether the recorded migration numbers are 1..n without a gap, n the newest shipped."""
    return bool(done) and len(done) == max(done) == _latest_number()


def _is_current(conn: sqlite3.Connection) -> bool:
    """Whether the database behind ``conn`` is in WAL mode with every migration applied
    (read-only checks: a new or older database answers ``False``)."""
    if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
        return False
    try:
        done = {row[0] for row in conn.execute("SELECT number FROM schema_migrations")}
    except sqlite3.OperationalError:
        return False  # no such table: a new database
    return _up_to_date(done)


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
