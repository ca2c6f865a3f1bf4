"""Turn tables: where each turn of a known file starts, for tail-first opens.

While the engine feeds a file to a :class:`~hangar.agents.base.ResumableProjector`, a
:class:`MarkRecorder` notes, for every turn the projector opens, the byte offset of the line
that opened it, its turn number, a checksum of that line's head and what the turn
inherited (``carry``); a line that reaches back to an earlier turn makes every boundary
after that turn unusable (``clean = False``). After the parse the turns' first message
indexes are known and the marks become a :class:`TurnTable`, kept in a shared
:class:`TurnTables` registry (bounded, in memory, and written through to a
:class:`~hangar.transcripts.table_store.TableStore` when one is given, so a new process
finds it).

A later cold open of the same file (same device, inode and head; possibly longer) starts a
fresh projector at the clean boundary just before the last ``limit`` messages, feeds only
the bytes from there on, and returns a first page whose messages carry their exact, final
indexes (DESIGN §7: the first page never waits for the full parse).
"""

# No `from __future__ import annotations`: msgspec resolves the persisted structs' field
# types when a restart's first open makes its decoder, and string annotations cost that
# open 2.5 times as much (a tenth of a millisecond).
import functools
import threading
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import msgspec

from hangar.agents.base import Carry, ResumableProjector, Unresumable
from hangar.transcripts.signature import FileSignature
from hangar.transcripts.table_store import TableStore, TableStoreError, decode_body, encode_body

CHECK_BYTES = 64
"""How much of a boundary line its checksum covers."""
PERSIST_MIN_BYTES = 256 * 1024
"""Tables of smaller files stay in memory only: a full parse of them takes milliseconds."""

_CARRY = msgspec.json.Decoder()
_CARRY_ENCODER = msgspec.json.Encoder()


def line_check(line: bytes) -> int:
    """The checksum a mark keeps of its line's head (a moved boundary shows)."""
    return zlib.crc32(line[:CHECK_BYTES])


class TurnMark(msgspec.Struct, frozen=True, array_like=True):
    offset: int
    """Byte offset of the line that opened the turn."""
    number: int
    """How many turns precede it in the file."""
    first_index: int
    """Index of the turn's first message (``-1`` while the parse runs)."""
    check: int
    """:func:`line_check` of that line."""
    clean: bool
    """No later line reached back across this boundary: a resume may start here."""
    carry: str
    """What the projector's ``turn_carry()`` said when the turn opened, as JSON text: only
    the mark a read resumes at is decoded (:meth:`inherited`)."""

    def inherited(self) -> Carry:
        """The carry itself (what a persisted table gives back: tuples come back as lists)."""
        value: Carry = _CARRY.decode(self.carry)
        return value


class TurnTable(msgspec.Struct, frozen=True):
    signature: FileSignature
    """The file when the table was made (a longer file with the same head may use it)."""
    marks: tuple[TurnMark, ...]
    """Increasing offsets and numbers; turns without a mark cannot be resumed at."""
    total: int
    """Messages in the file when the table was made."""

    def start_for(self, limit: int) -> TurnMark | None:
        """The clean mark to start from so at least ``limit`` messages follow it, or
        ``None`` when that is the file's first turn (a full parse is then just as cheap)."""
        wanted = self.total - limit
        for mark in reversed(self.marks):
            if mark.clean and mark.first_index <= wanted:
                return mark if mark.number > 0 else None
        return None

    def is_consistent(self) -> bool:
        """Offsets and numbers increase, indexes never decrease and stay within ``total``
        (the types are the decoder's check)."""
        previous: TurnMark | None = None
        for mark in self.marks:
            if mark.offset < 0 or mark.offset >= self.signature.size or mark.first_index < 0:
                return False
            if previous is not None and (
                mark.offset <= previous.offset
                or mark.number <= previous.number
                or mark.first_index < previous.first_index
            ):
                return False
            previous = mark
        return previous is None or previous.first_index <= self.total


def encode_table(table: TurnTable) -> bytes:
    """What a :class:`~hangar.transcripts.table_store.TableStore` keeps for ``table``."""
    return encode_body(table)


def decode_table(body: bytes) -> TurnTable | None:
    """The table a store kept, or ``None`` when the body is not an intact table of this
    format and hangar version. The digest vouches for what this version wrote and the
    decoder for the types; consistency is :meth:`TurnTable.is_consistent` (not yet the
    file)."""
    return decode_body(body, _table_decoder())


@functools.cache
def _table_decoder() -> msgspec.msgpack.Decoder[TurnTable]:
    """Made on first use: resolving the structs' annotations costs a command that never
    opens a stored table a fraction of a millisecond."""
    return msgspec.msgpack.Decoder(TurnTable)


@dataclass
class MarkRecorder:
    """Collects the marks of one feed (see the module docstring); ``count`` is the
    projector's ``turns_started()`` before the first line."""

    count: int = 0
    marks: list[TurnMark] = field(default_factory=list)
    first_number: int = field(init=False)
    """``count`` when the feed started: the number of the projector's first turn."""

    def __post_init__(self) -> None:
        self.first_number = self.count

    def after_line(self, projector: ResumableProjector, offset: int, line: bytes) -> None:
        """Call after feeding the line that starts at ``offset``."""
        started = projector.turns_started()
        if started != self.count:
            self._drop_from(min(started, self.count))
            if started == self.count + 1:
                carry = _encoded(projector.turn_carry())
                if carry is not None:
                    mark = TurnMark(offset, self.count, -1, line_check(line), True, carry)
                    self.marks.append(mark)
            self.count = started
        reached = projector.reached_back()
        if reached is not None:
            self._dirty_after(reached)

    def _drop_from(self, number: int) -> None:
        while self.marks and self.marks[-1].number >= number:
            self.marks.pop()

    def _dirty_after(self, number: int) -> None:
        for position in range(len(self.marks) - 1, -1, -1):
            mark = self.marks[position]
            if mark.number <= number:
                break
            if mark.clean:
                self.marks[position] = msgspec.structs.replace(mark, clean=False)

    def with_indexes(self, turn_base: int, firsts: Sequence[int]) -> list[TurnMark] | None:
        """The marks with their turns' first indexes (``firsts[i]`` is turn
        ``turn_base + i``), or ``None`` when a mark names a turn the projector lacks."""
        out: list[TurnMark] = []
        for mark in self.marks:
            position = mark.number - turn_base
            if position < 0 or position >= len(firsts):
                return None
            out.append(msgspec.structs.replace(mark, first_index=firsts[position]))
        return out


def _encoded(carry: "Carry | Unresumable") -> str | None:
    """``carry`` as JSON text, or ``None`` for :data:`UNRESUMABLE` and for a value that
    does not encode."""
    if isinstance(carry, Unresumable):
        return None
    try:
        return _CARRY_ENCODER.encode(carry).decode()
    except (TypeError, msgspec.EncodeError):
        return None


@dataclass
class TableStats:
    """What the registry did with its store (for tests and the benchmark)."""

    loaded: int = 0
    rejected: int = 0
    """Stored tables ignored: undecodable, another version, inconsistent, or failing a
    check when used (:meth:`TurnTables.reject`)."""
    saved: int = 0
    store_errors: int = 0


class TurnTables:
    """A bounded, thread-safe registry of turn tables keyed like the engine's cache,
    optionally written through to a persistent :class:`TableStore`.

    Writes to the store are thinned out for growing files: a table is saved when it is
    new or replaces a different file, and again once it has ``1/8`` more marks (at least
    4) than the saved one; a table that lags behind its file still opens tail-first, it
    only reads a few more turns. Store failures never fail a read (the table then lives in
    memory only).
    """

    def __init__(
        self,
        capacity: int = 4096,
        store: TableStore | None = None,
        *,
        min_file_bytes: int = PERSIST_MIN_BYTES,
    ) -> None:
        self.capacity = capacity
        self.store = store
        self.min_file_bytes = min_file_bytes
        """Tables of smaller files are kept in memory only (a full parse is cheap)."""
        self.stats = TableStats()
        self._tables: OrderedDict[str, TurnTable | None] = OrderedDict()
        self._saved: dict[str, tuple[int, int, int]] = {}
        """Per key: (device, inode, marks) of the table last saved."""
        self._lock = threading.Lock()

    def get(self, key: str) -> TurnTable | None:
        with self._lock:
            if key in self._tables:
                self._tables.move_to_end(key)
                return self._tables[key]
        table = self._load(key)
        with self._lock:
            if key not in self._tables:  # a put() while loading wins
                self._remember(key, table)
            return self._tables[key]

    def put(self, key: str, table: TurnTable) -> None:
        with self._lock:
            self._remember(key, table)
            save = self._should_save(key, table)
        if save:
            self._save(key, table)

    def forget(self, key: str) -> None:
        with self._lock:
            self._remember(key, None)
            self._saved.pop(key, None)
        if self.store is not None:
            try:
                self.store.delete_table(key)
            except TableStoreError:
                self.stats.store_errors += 1

    def reject(self, key: str) -> None:
        """Drop a table that failed a check when used (it is rebuilt by the next full read)."""
        self.stats.rejected += 1
        self.forget(key)

    def _remember(self, key: str, table: TurnTable | None) -> None:
        self._tables[key] = table
        self._tables.move_to_end(key)
        while len(self._tables) > self.capacity:
            dropped, _ = self._tables.popitem(last=False)
            self._saved.pop(dropped, None)

    def _should_save(self, key: str, table: TurnTable) -> bool:
        if self.store is None or table.signature.size < self.min_file_bytes:
            return False
        saved = self._saved.get(key)
        sig = table.signature
        if saved is None or saved[:2] != (sig.device, sig.inode):
            return True
        return len(table.marks) >= saved[2] + max(4, saved[2] // 8)

    def _save(self, key: str, table: TurnTable) -> None:
        assert self.store is not None
        try:
            self.store.save_table(key, encode_table(table))
        except TableStoreError:
            self.stats.store_errors += 1
            return
        self.stats.saved += 1
        with self._lock:
            self._saved[key] = (table.signature.device, table.signature.inode, len(table.marks))

    def _load(self, key: str) -> TurnTable | None:
        if self.store is None:
            return None
        try:
            body = self.store.load_table(key)
        except TableStoreError:
            self.stats.store_errors += 1
            return None
        if body is None:
            return None
        table = decode_table(body)
        if table is None or not table.is_consistent():
            self.reject(key)
            return None
        self.stats.loaded += 1
        with self._lock:
            sig = table.signature
            self._saved[key] = (sig.device, sig.inode, len(table.marks))
        return table
