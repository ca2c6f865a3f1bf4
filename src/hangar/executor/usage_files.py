"""What each session file yielded to the usage count, kept in memory and in ``executor.db``
(table ``usage_files``) by the file's stat signature.

A report reads only the files that changed since any earlier count, in this process or an
older one. A stored body holds the file's call keys and its sums by (day, model), enough to
add the file at once; its calls are decoded only when some of them were already counted in an
older session (a fork or a resumed copy). Stored bodies are derived data: one that does not
decode or no longer matches its file is read again; a database error keeps the count in memory.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable

import msgspec

from hangar.executor.database import ExecutorDatabase
from hangar.model import TokenUse, UsageEvent

Sums = list[int]
"""``[calls, input, cache_read, cache_write, output, reasoning]``."""

DayModel = tuple[str | None, str | None]

_VERSION = 1


def add_tokens(sums: Sums, tokens: TokenUse, calls: int = 1) -> None:
    sums[0] += calls
    sums[1] += tokens.input
    sums[2] += tokens.cache_read
    sums[3] += tokens.cache_write
    sums[4] += tokens.output
    sums[5] += tokens.reasoning


class _Body(msgspec.Struct, array_like=True):
    version: int
    signature: str
    keys: list[str]
    days: list[tuple[str | None, str | None, Sums]]
    events: msgspec.Raw
    """msgpack of ``list[UsageEvent]``, decoded only when needed."""


_ENCODE = msgspec.msgpack.Encoder().encode
_DECODE_BODY = msgspec.msgpack.Decoder(_Body).decode
_DECODE_EVENTS = msgspec.msgpack.Decoder(list[UsageEvent]).decode


class FileUsage:
    """The distinct calls of one file (by key) and their sums by day and model."""

    __slots__ = ("_events", "_raw", "days", "keys", "signature")

    def __init__(
        self,
        signature: str,
        keys: frozenset[str],
        days: dict[DayModel, Sums],
        events: list[UsageEvent] | None,
        raw: bytes | None = None,
    ) -> None:
        self.signature = signature
        self.keys = keys
        self.days = days
        self._events = events
        self._raw = raw

    @classmethod
    def of(
        cls, signature: str, events: Iterable[UsageEvent], day: Callable[[str | None], str | None]
    ) -> FileUsage:
        unique: dict[str, UsageEvent] = {}
        for event in events:
            unique.setdefault(event.key, event)
        days: dict[DayModel, Sums] = {}
        for event in unique.values():
            bucket = (day(event.at), event.model)
            sums = days.get(bucket)
            if sums is None:
                sums = days[bucket] = [0, 0, 0, 0, 0, 0]
            add_tokens(sums, event.tokens)
        return cls(signature, frozenset(unique), days, list(unique.values()))

    @property
    def events(self) -> list[UsageEvent]:
        if self._events is None:
            self._events = _DECODE_EVENTS(self._raw or b"\x90")
        return self._events

    def body(self) -> bytes:
        days = [(day, model, sums) for (day, model), sums in self.days.items()]
        events = msgspec.Raw(_ENCODE(self.events))
        return _ENCODE(_Body(_VERSION, self.signature, sorted(self.keys), days, events))

    @classmethod
    def from_body(cls, body: bytes) -> FileUsage | None:
        try:
            stored = _DECODE_BODY(body)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None
        if stored.version != _VERSION:
            return None
        days = {(day, model): list(sums) for day, model, sums in stored.days}
        return cls(stored.signature, frozenset(stored.keys), days, None, bytes(stored.events))


class UsageFiles:
    """The per-file usage of this device's sessions: memory first, then ``executor.db``."""

    def __init__(self, db: ExecutorDatabase) -> None:
        self.db = db
        self._memory: dict[str, FileUsage] = {}
        self._stored: dict[str, bytes] | None = None
        self._pending: dict[str, FileUsage] = {}
        self._lock = threading.Lock()

    def get(self, key: str, signature: str) -> FileUsage | None:
        with self._lock:
            found = self._memory.get(key)
            if found is not None and found.signature == signature:
                return found
            body = self._load().pop(key, None)
        if body is None:
            return None
        stored = FileUsage.from_body(body)
        if stored is None or stored.signature != signature:
            return None
        with self._lock:
            self._memory[key] = stored
        return stored

    def put(self, key: str, usage: FileUsage) -> None:
        with self._lock:
            self._memory[key] = usage
            self._pending[key] = usage

    def save(self, current: set[str]) -> None:
        """Write what was read since the last save; forget files no longer indexed."""
        with self._lock:
            pending, self._pending = self._pending, {}
            gone = [key for key in self._memory if key not in current]
            for key in gone:
                del self._memory[key]
            stored = self._load()
            stale = [key for key in stored if key not in current]
            for key in stale:
                del stored[key]
            gone += stale
        if not pending and not gone:
            return
        try:
            with self.db.write() as conn:
                conn.executemany(
                    "DELETE FROM usage_files WHERE cache_key = ?", [(k,) for k in gone]
                )
                conn.executemany(
                    "INSERT INTO usage_files (cache_key, body) VALUES (?, ?)"
                    " ON CONFLICT (cache_key) DO UPDATE SET body = excluded.body",
                    [(key, usage.body()) for key, usage in pending.items()],
                )
        except sqlite3.Error:
            return  # derived data: the next count reads these files again

    def _load(self) -> dict[str, bytes]:
        """Stored bodies not yet taken into memory (read once, on first use; lock held)."""
        if self._stored is None:
            try:
                rows = self.db.read().execute("SELECT cache_key, body FROM usage_files").fetchall()
            except sqlite3.Error:
                rows = []
            self._stored = {row[0]: bytes(row[1]) for row in rows}
        return self._stored
