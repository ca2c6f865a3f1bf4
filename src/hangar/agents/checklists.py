"""Turning each agent's native todo-list data into a :class:`~hangar.model.Checklist`.

One function per native source. Each returns a complete checklist, an empty one for an
explicit clear, or ``None`` when the input is not a valid update — the caller then keeps
the previous list (CL-025): an invalid update never clears. Input must be the raw tool
arguments or event payload, never a display-truncated string (CL-008, CL-013).
Nothing here looks at assistant prose or other tools (CL-022, CL-066).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from hangar.model.checklist import Checklist, ChecklistItem, ChecklistPriority, ChecklistStatus

_STATUS: dict[str, ChecklistStatus] = {
    "pending": "pending",
    "todo": "pending",
    "not_started": "pending",
    "in_progress": "in_progress",
    "inprogress": "in_progress",
    "in-progress": "in_progress",
    "active": "in_progress",
    "completed": "completed",
    "complete": "completed",
    "done": "completed",
    "cancelled": "cancelled",
    "canceled": "cancelled",
}
_PRIORITY: dict[str, ChecklistPriority] = {"high": "high", "medium": "medium", "low": "low"}


def _status(value: object) -> ChecklistStatus | None:
    if not isinstance(value, str):
        return None
    return _STATUS.get(value.strip().lower().replace(" ", "_"))


def _priority(value: object) -> ChecklistPriority | None:
    return _PRIORITY.get(value.strip().lower()) if isinstance(value, str) else None


def _arguments(raw: object) -> object:
    """Tool arguments may arrive as a JSON string (Codex, Chat Completions) or an object."""
    if isinstance(raw, str | bytes):
        try:
            return json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return None
    return raw


def _items(
    entries: object, content_key: str, *, with_priority: bool
) -> tuple[ChecklistItem, ...] | None:
    if not isinstance(entries, Sequence) or isinstance(entries, str | bytes):
        return None
    items: list[ChecklistItem] = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            return None
        content, status = entry.get(content_key), _status(entry.get("status"))
        if not isinstance(content, str) or not content.strip() or status is None:
            return None
        priority = _priority(entry.get("priority")) if with_priority else None
        items.append(ChecklistItem(content=content, status=status, priority=priority))
    return tuple(items)


def from_codex_update_plan(arguments: object) -> Checklist | None:
    """Codex ``update_plan`` arguments ``{explanation?, plan: [{step, status}]}``."""
    args = _arguments(arguments)
    if not isinstance(args, Mapping):
        return None
    items = _items(args.get("plan"), "step", with_priority=False)
    return None if items is None else Checklist("codex.update_plan", items)


def from_codex_plan_update(params: object) -> Checklist | None:
    """App-server ``turn/plan/updated`` params ``{plan: [{step, status: inProgress…}]}``."""
    if not isinstance(params, Mapping):
        return None
    items = _items(params.get("plan"), "step", with_priority=False)
    return None if items is None else Checklist("codex.turn_plan_updated", items)


def from_codex_todo_list(item: object) -> Checklist | None:
    """``codex exec --json`` ``todo_list`` item ``{items: [{text, completed}]}``."""
    if not isinstance(item, Mapping):
        return None
    entries = item.get("items")
    if not isinstance(entries, Sequence) or isinstance(entries, str | bytes):
        return None
    items: list[ChecklistItem] = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            return None
        text, completed = entry.get("text"), entry.get("completed")
        if not isinstance(text, str) or not text.strip() or not isinstance(completed, bool):
            return None
        items.append(ChecklistItem(text, "completed" if completed else "pending"))
    return Checklist("codex.todo_list", tuple(items))


def from_claude_todowrite(tool_input: object) -> Checklist | None:
    """Claude ``TodoWrite`` input: ``{todos: [{content, status, activeForm}]}`` (current) or
    ``{todos: [{id, content, status, priority}]}`` (≤ 1.0)."""
    args = _arguments(tool_input)
    if not isinstance(args, Mapping):
        return None
    items = _items(args.get("todos"), "content", with_priority=True)
    return None if items is None else Checklist("claude.TodoWrite", items)


def from_opencode_todos(todos: object, source: str = "opencode.todo") -> Checklist | None:
    """OpenCode todos (``todo.updated``, the ``todo`` table, ``todowrite`` input ``todos``):
    ``[{content, status, priority}]``, no ids (CL-001)."""
    if isinstance(todos, Mapping):
        todos = todos.get("todos")
    items = _items(_arguments(todos), "content", with_priority=True)
    return None if items is None else Checklist(source, items)


def from_acp_plan(update: object) -> Checklist | None:
    """ACP ``session/update`` ``plan``: ``{entries: [{content, priority, status}]}``."""
    if not isinstance(update, Mapping):
        return None
    items = _items(update.get("entries"), "content", with_priority=True)
    return None if items is None else Checklist("acp.plan", items)


_CN_ITEM = re.compile(r"^\s*[-*]\s+\[( |x|X)\]\s+(\S.*?)\s*$")


def from_continue_checklist(arguments: object) -> Checklist | None:
    """Continue ``Checklist`` tool arguments ``{checklist: "<markdown>"}`` (CL-003, CL-004).

    Accepted: blank lines and ``- [ ]`` / ``- [x]`` / ``- [X]`` items with non-empty content.
    An empty or whitespace-only string clears (CL-023). Any other non-empty line makes the
    whole update invalid (CL-025, CL-026).
    """
    args = _arguments(arguments)
    if not isinstance(args, Mapping):
        return None
    text = args.get("checklist")
    if not isinstance(text, str):
        return None
    items: list[ChecklistItem] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        match = _CN_ITEM.match(line)
        if match is None:
            return None
        done = match.group(1) in ("x", "X")
        items.append(ChecklistItem(match.group(2), "completed" if done else "pending"))
    return Checklist("continue.Checklist", tuple(items))


def checklist_to_json(checklist: Checklist) -> dict[str, Any]:
    """The API shape ``{source, items[{content, status, priority?}]}``."""
    items: list[dict[str, str]] = []
    for item in checklist.items:
        entry = {"content": item.content, "status": item.status}
        if item.priority:
            entry["priority"] = item.priority
        items.append(entry)
    return {"source": checklist.source, "items": items}
