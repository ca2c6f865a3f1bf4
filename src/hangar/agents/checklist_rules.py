"""The checklist rules, enforced in one place for every agent (seed runtime-checklist).

Every store projection and live event mapper turns native data into candidate updates with
:mod:`hangar.agents.checklists` (a :class:`~hangar.model.Checklist`, an empty one for a
clear, ``None`` for an invalid update) and hands each one, in the order the agent wrote
them, to one :class:`ChecklistLedger` per session, naming the turn (the user request) that
produced it. The ledger decides what is committed; a committed update becomes a
:class:`~hangar.model.ChecklistBlock` on that turn's assistant message. That block is the
only place a checklist is stored: reopening or restarting re-projects the same blocks from
the agent's own files (CL-037, CL-038, CL-041, CL-068).

Contract of :meth:`ChecklistLedger.offer`:

* ``None`` (invalid or unconfirmed input) commits nothing; the previous list stays (CL-025).
* An empty list is a real update that clears; its empty block is kept, so a saved and
  replayed clear never brings back older content (CL-023, CL-030, CL-070).
* ``key`` (a tool call id, an event id) commits at most once per session (CL-015, CL-034).
* A ledger for a stream that carries native events (``ChecklistLedger(native_source=True)``:
  OpenCode ``todo.updated``, ACP ``plan``, Codex ``turn/plan/updated`` in a live session)
  never lets a tool record update the list, whichever of the two arrives first: only the
  native event does (CL-033), once (CL-034). The tool call itself stays as tool activity
  (CL-067).
* A ledger over stored files, which may hold only the tool records, commits them; in one
  turn, once a native update (a stored snapshot) has been seen, tool records no longer update
  the list, and a native update repeating what a tool record committed is not committed again
  (CL-034).
* An update is owned by the turn it names, never by "the active turn": a late event of an
  older request lands on the older message and never changes a newer turn (CL-035, CL-036).
  A child session has its own ledger, so its lists never reach the parent (CL-064).
* Nothing here ever rewrites item statuses, e.g. when a turn ends, fails or is cancelled
  (CL-065).

The current checklist of a transcript (:meth:`ChecklistLedger.current`) is the latest
committed state **of the latest turn**, or ``None`` when that turn has committed none: a new
turn shows its own list and never reaches back to an older turn's (CL-011, CL-032, CL-064).
Older lists stay readable as blocks on their own messages.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

from hangar.model import Checklist, ChecklistBlock, Message


@dataclass
class _Turn:
    checklist: Checklist | None = None
    native_seen: bool = False
    from_tool: bool = False


@dataclass(frozen=True)
class ChecklistUpdate:
    """One candidate update produced by a live event mapper (see :meth:`ChecklistLedger.apply`)."""

    turn: Hashable
    checklist: Checklist | None
    key: str | None = None
    native: bool = False


@dataclass
class ChecklistLedger:
    """Per-session checklist bookkeeping (see the module docstring for the rules)."""

    native_source: bool = False
    """The session's stream carries native checklist events: tool records never commit."""
    _turns: dict[Hashable, _Turn] = field(default_factory=dict)
    _keys: set[str] = field(default_factory=set)

    def offer(
        self,
        turn: Hashable,
        checklist: Checklist | None,
        *,
        key: str | None = None,
        native: bool = False,
    ) -> ChecklistBlock | None:
        """Offer one update for ``turn``; the block to add to that turn's assistant message,
        or ``None`` when nothing is committed."""
        if checklist is None or (self.native_source and not native):
            return None
        if key is not None:
            if key in self._keys:
                return None
            self._keys.add(key)
        state = self._turns.setdefault(turn, _Turn())
        if native:
            repeat = (
                not state.native_seen
                and state.from_tool
                and state.checklist is not None
                and state.checklist.items == checklist.items
            )
            state.native_seen = True
            if repeat:
                return None
            state.from_tool = False
        elif state.native_seen:
            return None
        else:
            state.from_tool = True
        state.checklist = checklist
        return ChecklistBlock(checklist.source, list(checklist.items))

    def apply(self, updates: Iterable[ChecklistUpdate]) -> list[tuple[Hashable, ChecklistBlock]]:
        """Offer each update in order; the committed blocks with their turns."""
        committed = []
        for update in updates:
            block = self.offer(update.turn, update.checklist, key=update.key, native=update.native)
            if block is not None:
                committed.append((update.turn, block))
        return committed

    def turn_checklist(self, turn: Hashable) -> Checklist | None:
        """The latest committed list of ``turn`` (an empty one if it was cleared)."""
        state = self._turns.get(turn)
        return None if state is None else state.checklist

    def current(self, latest_turn: Hashable | None) -> Checklist | None:
        """The transcript's current checklist: the latest state of ``latest_turn`` only."""
        return None if latest_turn is None else self.turn_checklist(latest_turn)


def block_checklist(block: ChecklistBlock) -> Checklist:
    return Checklist(source=block.source, items=tuple(block.items))


def current_checklist(messages: Sequence[Message]) -> Checklist | None:
    """The current checklist read back from projected messages, by the same rule as
    :meth:`ChecklistLedger.current`: the last checklist block of the latest turn."""
    if not messages:
        return None
    latest = messages[-1].turn_id
    for message in reversed(messages):
        if message.turn_id != latest:
            break
        for block in reversed(message.blocks or []):
            if isinstance(block, ChecklistBlock):
                return block_checklist(block)
    return None
