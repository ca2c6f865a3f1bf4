"""Claude Code tool calls → blocks: TodoWrite checklists, ExitPlanMode plans, results."""

from __future__ import annotations

from typing import Any

from hangar.model import ChecklistBlock, ChecklistItem

CHECKLIST_SOURCE = "claude.TodoWrite"
_STATUSES = {"pending", "in_progress", "completed", "cancelled"}
_PRIORITIES = {"high", "medium", "low"}


def checklist_from_todos(tool_input: Any) -> ChecklistBlock | None:
    """``TodoWrite`` input → checklist block; ``None`` for an invalid update.

    Current shape ``{todos: [{content, status, activeForm}]}``; ≤1.0 shape
    ``{todos: [{id, content, status, priority}]}``.
    """
    if not isinstance(tool_input, dict) or not isinstance(tool_input.get("todos"), list):
        return None
    items: list[ChecklistItem] = []
    for todo in tool_input["todos"]:
        if not isinstance(todo, dict) or not isinstance(todo.get("content"), str):
            return None
        status = todo.get("status", "pending")
        if status not in _STATUSES:
            return None
        priority = todo.get("priority")
        items.append(
            ChecklistItem(
                content=todo["content"],
                status=status,
                priority=priority if priority in _PRIORITIES else None,
            )
        )
    return ChecklistBlock(source=CHECKLIST_SOURCE, items=items)
