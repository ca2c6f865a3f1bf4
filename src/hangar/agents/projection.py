"""Turn-based projection shared by append-only stores.

A :class:`TurnProjector` keeps its session as a list of :class:`TurnState` objects. Each
line updates one turn (usually the last; a late result can update an earlier one) and marks
it dirty; :meth:`TurnProjector.take` re-renders only the turns from the first dirty one on,
so messages of earlier turns are never rebuilt (the contract of
:class:`hangar.agents.base.TranscriptProjector`). ``render`` must be a pure function of the
turn's state, which makes any batching of feeds and takes equal to one full parse.

A :class:`TurnProjector` is a :class:`~hangar.agents.base.ResumableProjector`: a subclass
names what a new turn inherits in :meth:`~TurnProjector.carry` (captured when the turn is
added) and restores it in :meth:`~TurnProjector.apply_carry`; a change to an earlier turn
than the last (:meth:`~TurnProjector.touch`, :meth:`~TurnProjector.reach`) is a reach back.
"""

from __future__ import annotations

from abc import abstractmethod
from collections import Counter
from collections.abc import Sequence

from hangar.agents.base import Carry, ProjectionDelta, ResumableProjector
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


class TurnProjector(ResumableProjector):
    """Dirty-turn bookkeeping; subclasses implement :meth:`feed` and :meth:`summary`."""

    def __init__(self) -> None:
        self.turns: list[TurnState] = []
        self.skipped: Counter[str] = Counter()
        self._dirty: int | None = None
        self._reached: int | None = None
        self._message_count = 0
        self._turn_carry: Carry = None
        self.turn_base = 0
        """How many turns precede ``turns[0]`` (non-zero after :meth:`resume`)."""

    # -- what a turn inherits -------------------------------------------------------------
    def carry(self) -> Carry:
        """State a new turn inherits from earlier lines (e.g. the model in use), captured
        when the turn is added and given back to :meth:`apply_carry` on resume."""
        return None

    def apply_carry(self, carry: Carry) -> None:
        """Restore what :meth:`carry` returned (subclasses that carry state override)."""

    # -- ResumableProjector -----------------------------------------------------------------
    def turns_started(self) -> int:
        return self.turn_base + len(self.turns)

    def turn_carry(self) -> Carry:
        return self._turn_carry

    def resume(self, carry: Carry, first_index: int, turn_base: int) -> None:
        self._message_count = first_index
        self.turn_base = turn_base
        self.apply_carry(carry)

    def turn_first_indexes(self) -> Sequence[int]:
        return [turn.first_index for turn in self.turns]

    def reached_back(self) -> int | None:
        reached, self._reached = self._reached, None
        return reached

    # -- bookkeeping ----------------------------------------------------------------------
    def next_turn_number(self) -> int:
        """1-based number of the next turn, for ids of turns the agent does not name."""
        return self.turn_base + len(self.turns) + 1

    def reach(self, position: int) -> None:
        """Record that a line used turn ``position`` (a reach back unless it is the last)."""
        if position < len(self.turns) - 1:
            number = self.turn_base + position
            if self._reached is None or number < self._reached:
                self._reached = number

    def touch(self, position: int) -> None:
        """Mark turn ``position`` (and so everything after it) for re-rendering."""
        # reach() and _mark() written out: most lines of a feed touch a turn.
        if position < len(self.turns) - 1:
            number = self.turn_base + position
            if self._reached is None or number < self._reached:
                self._reached = number
        if self._dirty is None or position < self._dirty:
            self._dirty = position

    def _mark(self, position: int) -> None:
        if self._dirty is None or position < self._dirty:
            self._dirty = position

    def add_turn(self, turn: TurnState) -> int:
        """Append a turn; the previous last turn re-renders too (its status may change)."""
        if not self.turns:
            turn.first_index = self._message_count
        self._turn_carry = self.carry()
        self.turns.append(turn)
        position = len(self.turns) - 1
        self._mark(max(0, position - 1))
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
