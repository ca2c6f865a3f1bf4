"""Cursor agent's todo tool as a :class:`~hangar.model.Checklist` (as hangar reads it).

Cursor's todo tool takes ``{todos: [{id, content, status}], merge}``: without ``merge`` the
list replaces the previous one, with ``merge: true`` each entry updates the item of the same
``id`` (its ``content`` or ``status``) and an unknown ``id`` is appended. Statuses are
``pending``/``in_progress``/``completed``/``cancelled``, also spelled ``TODO_STATUS_…`` (its
headless stream's ``updateTodosToolCall``). The name of the tool in Cursor's transcript is
taken to be ``TodoWrite``; neither is in a public fixture, so this is not verified against the
real CLI. Invalid input commits nothing (CL-025): the previous list stays.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from hangar.agents.checklists import from_opencode_todos
from hangar.model import Checklist

TOOL_NAMES = frozenset({"TodoWrite", "UpdateTodos", "todo_write"})
SOURCE = "cursor.TodoWrite"


def _status(value: object) -> object:
    if isinstance(value, str) and value.upper().startswith("TODO_STATUS_"):
        return value[len("TODO_STATUS_") :].lower()
    return value


@dataclass
class CursorTodos:
    """One chat's todo list, kept by id so that a merge can update it."""

    items: list[dict[str, object]] = field(default_factory=list)

    def apply(self, tool_input: object) -> Checklist | None:
        """The whole list after this call, or ``None`` (and nothing kept) when it is invalid."""
        if not isinstance(tool_input, Mapping):
            return None
        todos = tool_input.get("todos")
        if not isinstance(todos, Sequence) or isinstance(todos, str | bytes):
            return None
        merged = [dict(item) for item in self.items] if tool_input.get("merge") is True else []
        for todo in todos:
            if not isinstance(todo, Mapping):
                return None
            entry = {k: todo[k] for k in ("id", "content", "status") if k in todo}
            entry["status"] = _status(entry.get("status"))
            same = next((i for i in merged if "id" in entry and i.get("id") == entry["id"]), None)
            if same is None:
                merged.append(entry)
            else:
                same.update({k: v for k, v in entry.items() if v is not None})
        checklist = from_opencode_todos(merged, SOURCE)
        if checklist is not None:
            self.items = merged
        return checklist
