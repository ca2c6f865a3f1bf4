"""The transcript engine: a bounded cache of parsed sessions kept current by signature.

``TranscriptEngine.read(key, store, source)`` returns a :class:`CachedTranscript` for the
session, reading as little as possible:

* cache hit, ``refresh=False``: nothing is read (switching back to a task);
* cache hit, file unchanged (same signature): one ``stat`` and a head hash, no line read;
* appended (same device + inode, longer, same head): only the new bytes from the stored
  offset are read and fed to the cached projector; its delta replaces messages from the
  first affected turn on, earlier messages stay the same objects (RW-077, RW-078);
* truncated, replaced, same size with a new mtime, ``.zst``, or a rewritten format: the whole
  source is parsed again (RW-080);
* tail-first (``tail_messages`` given, an engine with ``tables``, a file whose turn table an
  earlier read left in :class:`~hangar.transcripts.tail.TurnTables`, in this process or,
  through its store, in an earlier one): a cold open reads only the last turns, from the
  clean turn boundary before the last ``tail_messages`` messages, and checks that the table
  still fits the file (the boundary line where the table said, with the same checksum;
  every later boundary it knows at the same offset and first index). A table that fails is
  dropped and the file parsed in full, so a wrong page is never served. The entry is then
  *partial* (``base > 0``); a read that needs older messages (``min_index``) parses the
  whole file. When the file grew, the read's new turns extend the table;
* never seen: :meth:`TranscriptEngine.glance` shows the last turns from the file's last
  bytes at once, with indexes settled by the next :meth:`~TranscriptEngine.read` (see
  :mod:`~hangar.transcripts.glance`).

A partial last line is never fed: the stored offset stops before it. The cache holds at most
``capacity`` sessions (least recently used evicted). All methods are thread-safe; a read
holds only its own task's lock while it reads or parses, so a long cold parse of one task
never delays a cached read of another.
"""

from __future__ import annotations

import gc
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from hangar.agents.base import (
    AgentStore,
    ResumableProjector,
    SessionSource,
    SessionSummary,
    TranscriptProjector,
)
from hangar.model import Message
from hangar.transcripts.glance import Glance, glance
from hangar.transcripts.lines import LineReader, is_compressed
from hangar.transcripts.signature import FileSignature, compare, sign
from hangar.transcripts.tail import MarkRecorder, TurnMark, TurnTable, TurnTables


@dataclass
class CachedTranscript:
    """The parsed state of one session: ``messages[i].index == base + i`` always.

    ``base`` is 0 for a full read; a tail-first read holds only the messages from ``base`` on
    (its ``summary`` then describes only those lines: use its checklist and context usage,
    not its title or counts).
    """

    source: SessionSource
    messages: list[Message]
    summary: SessionSummary
    signature: FileSignature
    offset: int = 0
    projector: TranscriptProjector | None = None
    marker: object = None
    """The store's :meth:`~hangar.agents.base.AgentStore.change_marker` when parsed."""
    base: int = 0
    recorder: MarkRecorder | None = None
    """Turn starts seen so far (reads of resumable projectors by an engine with tables)."""
    prefix: tuple[TurnMark, ...] = ()
    """The table's marks before ``base`` (tail-first reads), kept when the table grows."""

    @property
    def total(self) -> int:
        return self.base + len(self.messages)


@dataclass
class EngineStats:
    """Work counters (for tests and the benchmark): what the engine actually read."""

    bytes_read: int = 0
    full_parses: int = 0
    tail_parses: int = 0
    appends: int = 0
    signature_checks: int = 0
    cache_hits: int = 0


@dataclass
class TranscriptEngine:
    capacity: int = 16
    stats: EngineStats = field(default_factory=EngineStats)
    tables: TurnTables | None = None
    """Where reads leave turn tables and tail-first opens find them (may be shared, and
    persisted through its store)."""

    def __post_init__(self) -> None:
        self._cache: OrderedDict[str, CachedTranscript] = OrderedDict()
        self._lock = threading.RLock()
        self._key_locks: dict[str, threading.Lock] = {}

    def cached(self, key: str) -> CachedTranscript | None:
        with self._lock:
            return self._cache.get(key)

    def knows(self, key: str) -> bool:
        """Whether a first page of ``key`` can be exact without a full parse: this engine
        holds its parse, or its turn table is known (a tail-first :meth:`read`)."""
        return self.cached(key) is not None or (
            self.tables is not None and self.tables.get(key) is not None
        )

    def forget(self, key: str) -> None:
        with self._lock:
            self._cache.pop(key, None)

    def read(
        self,
        key: str,
        store: AgentStore,
        source: SessionSource,
        *,
        refresh: bool = True,
        tail_messages: int | None = None,
        min_index: int = 0,
    ) -> CachedTranscript:
        """The current transcript of ``source`` (see the module docstring for what is read).

        Without ``tail_messages`` the result is a full read, or a partial one whose ``base``
        is at most ``min_index``. Raises ``OSError`` (e.g. ``FileNotFoundError``, after
        forgetting the session and its turn table) when the source cannot be read.
        """
        with self._key_lock(key):
            with self._lock:
                entry = self._cache.get(key)
                if entry is not None and entry.source.path != source.path:
                    entry = None
                if entry is not None and entry.base > min_index and tail_messages is None:
                    entry = None  # older messages are needed: read the whole file
                if entry is not None and not refresh:
                    self.stats.cache_hits += 1
                    self._cache.move_to_end(key)
                    return entry
            # Reading and parsing hold only this key's lock: other tasks stay readable.
            try:
                signature = sign(source.path)
            except FileNotFoundError:
                self._drop(key)
                raise
            marker = store.change_marker(source)
            self.stats.signature_checks += 1
            if entry is not None:
                change = compare(entry.signature, signature, source.path)
                if change == "same" and marker != entry.marker:
                    change = "rewritten"
                if change == "same":
                    self.stats.cache_hits += 1
                elif change == "appended" and self._can_append(store, entry):
                    self._append(key, entry, signature)
                else:
                    if change == "rewritten" and self.tables is not None:
                        self.tables.forget(key)
                    entry = None
            if entry is None and tail_messages is not None:
                entry = self._parse_tail(key, store, source, signature, tail_messages)
            if entry is None:
                entry = self._parse(key, store, source, signature)
            entry.marker = marker
            with self._lock:
                self._cache[key] = entry
                self._cache.move_to_end(key)
                while len(self._cache) > self.capacity:
                    self._cache.popitem(last=False)
            return entry

    def glance(
        self, key: str, store: AgentStore, source: SessionSource, limit: int
    ) -> Glance | None:
        """The last ``limit`` messages of ``source`` at once: exact (``settled``) when this
        engine or its turn tables know the file (a tail-first :meth:`read`), else a
        :func:`~hangar.transcripts.glance.glance` from the file's last bytes, whose indexes
        settle with the next :meth:`read`. ``None`` when the source has no end to read
        from (rewritten formats, ``.zst``)."""
        if not self.knows(key):
            return glance(store, source, limit)
        before = self.stats.bytes_read
        entry = self.read(key, store, source, tail_messages=limit)
        return Glance(
            entry.messages[-limit:],
            True,
            None,
            self.stats.bytes_read - before,
            entry.summary.checklist,
            entry.summary.context_usage,
        )

    def _drop(self, key: str) -> None:
        """The session's file is gone: forget its parse and its turn table."""
        self.forget(key)
        if self.tables is not None:
            self.tables.forget(key)

    def _key_lock(self, key: str) -> threading.Lock:
        with self._lock:
            lock = self._key_locks.get(key)
            if lock is None:
                lock = self._key_locks[key] = threading.Lock()
            return lock

    @staticmethod
    def _can_append(store: AgentStore, entry: CachedTranscript) -> bool:
        return (
            store.reads_incrementally(entry.source)
            and entry.projector is not None
            and not is_compressed(entry.source.path)
        )

    def _feed(
        self, projector: TranscriptProjector, reader: LineReader, recorder: MarkRecorder | None
    ) -> None:
        # The parse allocates many small acyclic objects: cyclic GC passes are pure overhead.
        enabled = gc.isenabled()
        gc.disable()
        try:
            if recorder is None or not isinstance(projector, ResumableProjector):
                for line in reader:
                    projector.feed(line)
            else:
                feed, after = projector.feed, recorder.after_line
                for line in reader:
                    feed(line)
                    after(projector, reader.line_start, line)
        finally:
            if enabled:
                gc.enable()
        self.stats.bytes_read += reader.bytes_read

    def _parse(
        self, key: str, store: AgentStore, source: SessionSource, signature: FileSignature
    ) -> CachedTranscript:
        self.stats.full_parses += 1
        if not store.reads_incrementally(source):
            loaded = store.load(source)
            return CachedTranscript(source, loaded.messages, loaded.summary, signature)
        projector = store.new_projector(source)
        reader = _reader(projector, source.path, 0)
        recorder = MarkRecorder() if self._tail_capable(source, projector) else None
        self._feed(projector, reader, recorder)
        delta = projector.take()
        messages = delta.messages[:] if delta.start == 0 else []
        entry = CachedTranscript(
            source, messages, projector.summary(), signature, reader.end_offset, projector
        )
        entry.recorder = recorder
        self._keep_table(key, entry)
        return entry

    def _parse_tail(
        self,
        key: str,
        store: AgentStore,
        source: SessionSource,
        signature: FileSignature,
        limit: int,
    ) -> CachedTranscript | None:
        """A partial entry from the last turns, or ``None`` when no usable table exists
        (a table that fails a check is dropped: the full parse then makes a new one)."""
        tables = self.tables
        table = tables.get(key) if tables is not None else None
        if tables is None or table is None or not store.reads_incrementally(source):
            return None
        if compare(table.signature, signature, source.path) == "rewritten":
            tables.forget(key)
            return None
        mark = table.start_for(limit)
        projector = store.new_projector(source)
        if mark is None or not self._tail_capable(source, projector):
            return None
        assert isinstance(projector, ResumableProjector)
        try:
            carry = mark.inherited()
        except msgspec.DecodeError:
            tables.reject(key)
            return None
        projector.resume(carry, mark.first_index, mark.number)
        reader = _reader(projector, source.path, mark.offset)
        recorder = MarkRecorder(count=mark.number)
        self._feed(projector, reader, recorder)
        delta = projector.take()
        if not _tail_agrees(table, mark, recorder, projector, delta.start):
            tables.reject(key)
            return None
        self.stats.tail_parses += 1
        entry = CachedTranscript(
            source,
            delta.messages[:],
            projector.summary(),
            signature,
            reader.end_offset,
            projector,
            base=mark.first_index,
            recorder=recorder,
            prefix=tuple(m for m in table.marks if m.number < mark.number),
        )
        if recorder.count > table.marks[-1].number + 1:
            self._keep_table(key, entry)  # the file grew new turns: remember them
        return entry

    def _tail_capable(self, source: SessionSource, projector: TranscriptProjector) -> bool:
        return (
            self.tables is not None
            and isinstance(projector, ResumableProjector)
            and not is_compressed(source.path)
        )

    def _keep_table(self, key: str, entry: CachedTranscript) -> None:
        projector, recorder = entry.projector, entry.recorder
        if self.tables is None or recorder is None:
            return
        if not isinstance(projector, ResumableProjector):
            return
        marks = recorder.with_indexes(recorder.first_number, projector.turn_first_indexes())
        if marks is None:
            return  # a projector that lost track of its turns: no reliable table
        if entry.prefix and marks and marks[0].number <= entry.prefix[-1].number:
            return
        table = TurnTable(entry.signature, entry.prefix + tuple(marks), entry.total)
        self.tables.put(key, table)

    def _append(self, key: str, entry: CachedTranscript, signature: FileSignature) -> None:
        assert entry.projector is not None
        self.stats.appends += 1
        reader = _reader(entry.projector, entry.source.path, entry.offset)
        recorder = entry.recorder
        known_turns = recorder.count if recorder is not None else 0
        self._feed(entry.projector, reader, recorder)
        delta = entry.projector.take()
        entry.messages[delta.start - entry.base :] = delta.messages
        entry.offset = reader.end_offset
        entry.signature = signature
        entry.summary = entry.projector.summary()
        if recorder is not None and recorder.count != known_turns:
            # New turns: refresh the table (older marks and their indexes stay valid, and a
            # stale total only makes a tail-first open read a little more).
            self._keep_table(key, entry)


def _reader(projector: TranscriptProjector, path: Path, offset: int) -> LineReader:
    return LineReader(
        path,
        offset,
        parser_repairs_surrogates=projector.repairs_lone_surrogates,
        keep_line_endings=projector.accepts_line_endings,
    )


def _tail_agrees(
    table: TurnTable,
    mark: TurnMark,
    recorder: MarkRecorder,
    projector: ResumableProjector,
    start: int,
) -> bool:
    """Whether a read resumed at ``mark`` found the turns the table describes: the first
    message where the table said, the boundary line where it was (same checksum), and every
    later boundary the table knows at the same offset with the same first index."""
    seen = recorder.marks
    if start != mark.first_index or not seen:
        return False
    first = seen[0]
    if (first.number, first.offset, first.check) != (mark.number, mark.offset, mark.check):
        return False
    firsts = projector.turn_first_indexes()
    by_number = {m.number: m for m in seen}
    for known in table.marks:
        if known.number <= mark.number:
            continue
        found = by_number.get(known.number)
        if found is None or (found.offset, found.check) != (known.offset, known.check):
            return False
        position = known.number - mark.number
        if position >= len(firsts) or firsts[position] != known.first_index:
            return False
    return True


def parse_all(store: AgentStore, source: SessionSource) -> tuple[list[Message], SessionSummary]:
    """One full parse without caching (used by indexing and tests)."""
    engine = TranscriptEngine(capacity=1)
    entry = engine.read("once", store, source)
    return entry.messages, entry.summary


__all__ = ["CachedTranscript", "EngineStats", "Path", "TranscriptEngine", "parse_all"]
