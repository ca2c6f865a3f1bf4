"""Turn-based projection shared by append-only stores.

A :class:`TurnProjector` keeps its session as a list of :class:`TurnState` objects. Each
line updates one turn (usually the last; a late result can update an earlier one) and marks
it dirty; :meth:`TurnProjector.take` re-renders only the turns from the first dirty one on,
so messages of earlier turns are never rebuilt (the contract of
:class:`hangar.agents.base.TranscriptProjector`). ``render`` must be a pure function of the
turn's state, which makes any batching of feeds and takes equal to one full parse.
"""

from __future__ import annotations

from abc import abstractmethod
from collections import Counter

from hangar.agents.base import ProjectionDelta, TranscriptProjector
from hangar.model import Message
from hangar.model.messages import MessageStatus


class TurnState:
    """One request/response turn; subclasses hold the agent-specific state."""

    first_index: int = 0
    count: int = 0

    @abstractmethod
    def status(self, is_last: bool) -> MessageStatus:
        """The status of this turn's reply (``streaming`` only while it is the last)."""

    @abstractmethod
    def render(self, first_index: int, is_last: bool) -> list[Message]:
        """The messages of this turn, indexed from ``first_index``."""


class TurnProjector(TranscriptProjector):
    """Dirty-turn bookkeeping; subclasses implement :meth:`feed` and :meth:`summary`."""

    def __init__(self) -> None:
        self.turns: list[TurnState] = []
        self.skipped: Counter[str] = Counter()
        self._dirty: int | None = None
        self._message_count = 0
        self.turn_base = 0
        """How many turns precede ``turns[0]`` (non-zero after :meth:`resume`)."""

    def carry(self) -> object:
        """State a new turn inherits from earlier lines (e.g. the model in use), captured by
        the engine where a turn starts and given back to :meth:`apply_carry` on resume."""
        return None

    def apply_carry(self, carry: object) -> None:
        """Restore what :meth:`carry` returned (subclasses that carry state override)."""

    def resume(self, carry: object, first_index: int, turn_base: int) -> None:
        """Prepare an empty projector to continue at a turn boundary of a known file: the
        first turn it creates gets message index ``first_index`` and turn number
        ``turn_base + 1``. Fed the lines from that boundary on, it yields the same messages a
        full parse yields for those turns (checked by the engine's property tests)."""
        self._message_count = first_index
        self.turn_base = turn_base
        self.apply_carry(carry)

    def next_turn_number(self) -> int:
        """1-based number of the next turn, for ids of turns the agent does not name."""
        return self.turn_base + len(self.turns) + 1

    def touch(self, position: int) -> None:
        """Mark turn ``position`` (and so everything after it) for re-rendering."""
        if self._dirty is None or position < self._dirty:
            self._dirty = position

    def add_turn(self, turn: TurnState) -> int:
        """Append a turn; the previous last turn re-renders too (its status may change)."""
        if not self.turns:
            turn.first_index = self._message_count
        self.turns.append(turn)
        position = len(self.turns) - 1
        self.touch(max(0, position - 1))
        return position

    @property
    def last_position(self) -> int | None:
        """Position of the last turn in :attr:`turns`, ``None`` before the first."""
        return len(self.turns) - 1 if self.turns else None

    def session_status(self) -> str:
        """The session's status for its summary: its last turn's, ``running`` while that
        turn streams, ``done`` before any turn."""
        if not self.turns:
            return "done"
        status = self.turns[-1].status(True)
        return "running" if status == "streaming" else status

    def skip(self, kind: str) -> None:
        self.skipped[kind] += 1

    @property
    def message_count(self) -> int:
        return self._message_count

    def take(self) -> ProjectionDelta:
        if self._dirty is None:
            return ProjectionDelta(self._message_count, [])
        first = self._dirty
        self._dirty = None
        start = self.turns[first].first_index if first < len(self.turns) else self._message_count
        out: list[Message] = []
        index = start
        last = len(self.turns) - 1
        for position in range(first, len(self.turns)):
            turn = self.turns[position]
            rendered = turn.render(index, position == last)
            turn.first_index = index
            turn.count = len(rendered)
            index += turn.count
            out.extend(rendered)
        self._message_count = index
        return ProjectionDelta(start, out)
