"""Turn tables: where each turn of a known file starts, for tail-first opens.

While the engine reads a file in full it records, for every turn a
:class:`~hangar.agents.projection.TurnProjector` creates, the byte offset of the line that
created it, its absolute turn number and the state it inherited (``carry``). After the parse
the turns' first message indexes are known, and the :class:`TurnTable` is kept in a shared
:class:`TurnTables` registry (bounded, in memory) that outlives the cache entry.

A later cold open of the same file (same device, inode and head; possibly longer) can then
start a fresh projector at the turn boundary just before the last ``limit`` messages, feed
only the bytes from there on, and return a first page whose messages carry their exact,
final indexes (DESIGN §7: the first page never waits for the full parse). Older pages need
the full parse, which the engine runs on demand.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from hangar.transcripts.signature import FileSignature


@dataclass(frozen=True)
class TurnMark:
    offset: int
    """Byte offset of the line that created the turn."""
    number: int
    """How many turns precede it in the file."""
    carry: object
    """What the projector's ``carry()`` returned right after creating it."""


@dataclass(frozen=True)
class TurnTable:
    signature: FileSignature
    marks: tuple[TurnMark, ...]
    first_indexes: tuple[int, ...]
    total: int
    """Messages in the file when the table was made."""

    def start_for(self, limit: int) -> int | None:
        """The mark to start from so at least ``limit`` messages follow it, or ``None`` when
        that is the file's first turn (a full parse is then just as cheap)."""
        wanted = self.total - limit
        chosen: int | None = None
        for position in range(len(self.marks) - 1, -1, -1):
            if self.first_indexes[position] <= wanted:
                chosen = position
                break
        if chosen is None or chosen == 0:
            return None
        return chosen


class TurnTables:
    """A bounded, thread-safe registry of turn tables keyed like the engine's cache."""

    def __init__(self, capacity: int = 4096) -> None:
        self.capacity = capacity
        self._tables: OrderedDict[str, TurnTable] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> TurnTable | None:
        with self._lock:
            table = self._tables.get(key)
            if table is not None:
                self._tables.move_to_end(key)
            return table

    def put(self, key: str, table: TurnTable) -> None:
        with self._lock:
            self._tables[key] = table
            self._tables.move_to_end(key)
            while len(self._tables) > self.capacity:
                self._tables.popitem(last=False)

    def forget(self, key: str) -> None:
        with self._lock:
            self._tables.pop(key, None)
