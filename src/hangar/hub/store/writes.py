"""The one write path of the hub database: every repository and worker writes through
:func:`transaction`.

SQLite allows one writer at a time; a process-wide lock per engine makes writers of this
process queue in Python instead of spinning on ``SQLITE_BUSY``. Other databases (PostgreSQL)
take no lock here: their own row locks and constraints order concurrent writers, also across
hub replicas. Keep work that can be done outside the transaction (parsing, redaction) outside
it, so the lock is held only for the statements.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

from sqlalchemy.engine import Connection, Engine

_LOCKS: weakref.WeakKeyDictionary[Engine, threading.Lock] = weakref.WeakKeyDictionary()
_LOCKS_GUARD = threading.Lock()


def _writer_lock(engine: Engine) -> threading.Lock | None:
    if engine.dialect.name != "sqlite":
        return None
    with _LOCKS_GUARD:
        lock = _LOCKS.get(engine)
        if lock is None:
            lock = _LOCKS[engine] = threading.Lock()
        return lock


@contextmanager
def transaction(engine: Engine) -> Iterator[Connection]:
    """A connection inside one committed-or-rolled-back transaction, as the only writer."""
    lock = _writer_lock(engine)
    with lock if lock is not None else nullcontext(), engine.begin() as conn:
        yield conn
