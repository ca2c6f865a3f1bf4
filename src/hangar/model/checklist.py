"""The agent's own todo list as data (DESIGN §4, seed runtime-checklist).

Each update replaces the whole list; an empty item list means "cleared". Items carry no id:
agents do not give stable ones (CL-029).
"""

from __future__ import annotations

from typing import Literal

import msgspec

ChecklistStatus = Literal["pending", "in_progress", "completed", "cancelled"]
ChecklistPriority = Literal["high", "medium", "low"]


class ChecklistItem(msgspec.Struct, frozen=True, rename="camel", omit_defaults=True):
    content: str
    status: ChecklistStatus
    priority: ChecklistPriority | None = None


class Checklist(msgspec.Struct, frozen=True, rename="camel"):
    """A complete checklist as one update produced it.

    ``source`` names the native origin, e.g. ``codex.update_plan``, ``claude.TodoWrite``,
    ``opencode.todowrite``, ``continue.Checklist``, ``acp.plan``.
    """

    source: str
    items: tuple[ChecklistItem, ...]

    @property
    def cleared(self) -> bool:
        return not self.items
