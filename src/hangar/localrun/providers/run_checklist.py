"""Live checklists in the execution log (the CL rules, applied to a run's events).

A provider's mapper turns its native checklist events into
:class:`~hangar.agents.checklist_rules.ChecklistUpdate` values (the mappers of
:mod:`hangar.agents.checklist_events` or its own) and offers them here, one
:class:`~hangar.agents.checklist_rules.ChecklistLedger` per agent session. What the ledger
commits is reported as a ``text`` message with ``input.kind = "checklist"`` and
``input.checklist = {source, items}`` — the same pattern as Codex's proposed plan (a kind of
text, no new message type, LR-157); its content is the list as Markdown task items, so the
log stays readable where nothing renders the kind. A checklist never becomes a comment (the
outbox posts ``text`` only for proposed plans).

sourceKey: ``session:<session id>:checklist:<key>``, where ``key`` is the agent's own id of
the update (a tool call id, an event id); an update that has none is not reported (LR-160,
LR-161).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from hangar.agents.checklist_rules import ChecklistLedger, ChecklistUpdate
from hangar.agents.checklists import checklist_to_json
from hangar.localrun.providers.base import MessageSink
from hangar.model import Checklist
from hangar.model.run_messages import RunMessage

_MARKS = {"pending": " ", "in_progress": "~", "completed": "x", "cancelled": "-"}


def checklist_markdown(checklist: Checklist) -> str:
    """``- [x] done`` / ``- [~] doing`` / ``- [ ] to do`` / ``- [-] dropped``; empty: cleared."""
    if checklist.cleared:
        return "Checklist cleared"
    return "\n".join(f"- [{_MARKS[item.status]}] {item.content}" for item in checklist.items)


@dataclass
class RunChecklists:
    """One ledger per session; committed updates go to ``reporter`` as checklist texts."""

    reporter: MessageSink
    source: str
    _ledgers: dict[str, ChecklistLedger] = field(default_factory=dict)

    def offer(self, session: str, update: ChecklistUpdate | None, key: str, turn_key: str) -> bool:
        """Offer ``update`` of ``session``; report it when the rules commit it."""
        if update is None or update.checklist is None or not key:
            return False
        ledger = self._ledgers.setdefault(session, ChecklistLedger())
        turn: Hashable = update.turn
        block = ledger.offer(turn, update.checklist, key=update.key, native=update.native)
        if block is None:
            return False
        checklist = Checklist(block.source, tuple(block.items))
        self.reporter.report(
            RunMessage(
                "text",
                self.source,
                f"session:{session}:checklist:{key}",
                content=checklist_markdown(checklist),
                input={
                    "kind": "checklist",
                    "checklist": checklist_to_json(checklist),
                    "session_id": session,
                    "turnKey": turn_key,
                },
            )
        )
        return True
