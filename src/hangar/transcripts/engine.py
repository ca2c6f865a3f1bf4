"""The transcript engine: a bounded cache of parsed sessions kept current by signature.

``TranscriptEngine.read(key, store, source)`` returns a :class:`CachedTranscript` for the
session, reading as little as possible:

* cache hit, ``refresh=False``: nothing is read (switching back to a task);
* cache hit, file unchanged (same signature): one ``stat`` and a head hash, no line read;
* appended (same device + inode, longer, same head): only the new bytes from the stored
  offset are read and fed to the cached projector; its delta replaces messages from the
  first affected turn on, earlier messages stay the same objects (RW-077, RW-078);
* truncated, replaced, same size with a new mtime, ``.zst``, or a rewritten format: the whole
  source is parsed again (RW-080).

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

from hangar.agents.base import (
    AgentStore,
    SessionSource,
    SessionSummary,
    TranscriptProjector,
)
from hangar.model import Message
from hangar.transcripts.lines import LineReader, is_compressed
from hangar.transcripts.signature import FileSignature, compare, sign


@dataclass
class CachedTranscript:
    """The parsed state of one session. ``messages[i].index == i`` always."""

    source: SessionSource
    messages: list[Message]
    summary: SessionSummary
    signature: FileSignature
    offset: int = 0
    projector: TranscriptProjector | None = None
    marker: object = None
    """The store's :meth:`~hangar.agents.base.AgentStore.change_marker` when parsed."""


@dataclass
class EngineStats:
    """Work counters (for tests and the benchmark): what the engine actually read."""

    bytes_read: int = 0
    full_parses: int = 0
    appends: int = 0
    signature_checks: int = 0
    cache_hits: int = 0


@dataclass
class TranscriptEngine:
    capacity: int = 16
    stats: EngineStats = field(default_factory=EngineStats)

    def __post_init__(self) -> None:
        self._cache: OrderedDict[str, CachedTranscript] = OrderedDict()
        self._lock = threading.RLock()
        self._key_locks: dict[str, threading.Lock] = {}

    def cached(self, key: str) -> CachedTranscript | None:
        with self._lock:
            return self._cache.get(key)

    def forget(self, key: str) -> None:
        with self._lock:
            self._cache.pop(key, None)

    def read(
        self, key: str, store: AgentStore, source: SessionSource, *, refresh: bool = True
    ) -> CachedTranscript:
        """The current transcript of ``source`` (see the module docstring for what is read).

        Raises ``OSError`` (e.g. ``FileNotFoundError``) when the source cannot be read.
        """
        with self._key_lock(key):
            with self._lock:
                entry = self._cache.get(key)
                if entry is not None and entry.source.path != source.path:
                    entry = None
                if entry is not None and not refresh:
                    self.stats.cache_hits += 1
                    self._cache.move_to_end(key)
                    return entry
            # Reading and parsing hold only this key's lock: other tasks stay readable.
            signature = sign(source.path)
            marker = store.change_marker(source)
            self.stats.signature_checks += 1
            if entry is not None:
                change = compare(entry.signature, signature, source.path)
                if change == "same" and marker != entry.marker:
                    change = "rewritten"
                if change == "same":
                    self.stats.cache_hits += 1
                elif change == "appended" and self._can_append(store, entry):
                    self._append(entry, signature)
                else:
                    entry = None
            if entry is None:
                entry = self._parse(store, source, signature)
                entry.marker = marker
            with self._lock:
                self._cache[key] = entry
                self._cache.move_to_end(key)
                while len(self._cache) > self.capacity:
                    self._cache.popitem(last=False)
            return entry

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

    def _parse(
        self, store: AgentStore, source: SessionSource, signature: FileSignature
    ) -> CachedTranscript:
        self.stats.full_parses += 1
        if not store.reads_incrementally(source):
            loaded = store.load(source)
            return CachedTranscript(source, loaded.messages, loaded.summary, signature)
        projector = store.new_projector(source)
        reader = LineReader(source.path, 0)
        # The parse allocates many small acyclic objects: cyclic GC passes are pure overhead.
        enabled = gc.isenabled()
        gc.disable()
        try:
            for line in reader:
                projector.feed(line)
        finally:
            if enabled:
                gc.enable()
        self.stats.bytes_read += reader.bytes_read
        delta = projector.take()
        messages = delta.messages[:] if delta.start == 0 else []
        return CachedTranscript(
            source, messages, projector.summary(), signature, reader.end_offset, projector
        )

    def _append(self, entry: CachedTranscript, signature: FileSignature) -> None:
        assert entry.projector is not None
        self.stats.appends += 1
        reader = LineReader(entry.source.path, entry.offset)
        for line in reader:
            entry.projector.feed(line)
        self.stats.bytes_read += reader.bytes_read
        delta = entry.projector.take()
        entry.messages[delta.start :] = delta.messages
        entry.offset = reader.end_offset
        entry.signature = signature
        entry.summary = entry.projector.summary()


def parse_all(store: AgentStore, source: SessionSource) -> tuple[list[Message], SessionSummary]:
    """One full parse without caching (used by indexing and tests)."""
    engine = TranscriptEngine(capacity=1)
    entry = engine.read("once", store, source)
    return entry.messages, entry.summary


__all__ = ["CachedTranscript", "EngineStats", "Path", "TranscriptEngine", "parse_all"]
