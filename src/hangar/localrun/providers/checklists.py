"""The agent's checklist in a local run's messages: one helper for every provider.

A provider reads the agent's native list updates (``TodoWrite`` calls, app-server
``turn/plan/updated``, OpenCode ``todo.updated``, Continue ``Checklist``, ACP ``plan``), turns
each into a :class:`~hangar.model.Checklist` (or ``None`` when invalid) with
:mod:`hangar.agents.checklists`, and offers it here for the session and turn it belongs to.
What the session's :class:`~hangar.agents.checklist_rules.ChecklistLedger` commits comes
back as the JSON to put in the reporting message's ``input.checklist``; the hub mirrors it to
the run's issue (:mod:`hangar.hub.store.run_checklists`). An invalid update, a repeat of a
committed key, or a tool record in a stream with native events commits nothing, and the
issue keeps its previous list. A child session must never be offered here (CL-036).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from hangar.agents.checklist_rules import ChecklistLedger, block_checklist
from hangar.agents.checklists import checklist_to_json
from hangar.model import Checklist


@dataclass
class RunChecklists:
    """One ledger per agent session of a run."""

    native_source: bool = False
    """The sessions' streams carry native events (see :class:`ChecklistLedger`)."""
    _ledgers: dict[str, ChecklistLedger] = field(default_factory=dict)

    def offer(
        self,
        session: str,
        turn: Hashable,
        checklist: Checklist | None,
        *,
        key: str | None = None,
        native: bool = False,
    ) -> dict[str, Any] | None:
        """The ``input.checklist`` of a committed update, or ``None``."""
        ledger = self._ledgers.setdefault(session, ChecklistLedger(self.native_source))
        committed = ledger.offer(turn, checklist, key=key, native=native)
        return None if committed is None else checklist_to_json(block_checklist(committed))
