"""Live event streams to checklist updates, for providers and protocol clients.

Each mapper reads one agent's raw events (before any display truncation, CL-008, CL-044)
and yields :class:`~hangar.agents.checklist_rules.ChecklistUpdate` values naming the turn
that owns them; a :class:`~hangar.agents.checklist_rules.ChecklistLedger` then applies the
rules. Mappers never look at text, status lines or other tools (CL-022, CL-046).

* :func:`codex_plan_updated` — app-server ``turn/plan/updated`` params (native, owned by
  the notification's own ``turnId``).
* :class:`CodexExecMapper` — ``codex exec --json`` stdout events: ``todo_list`` items.
* :class:`OpenCodeEventMapper` — ``opencode serve`` SSE bus events: ``todo.updated``
  (native) and ``todowrite`` tool parts (tool records), for one session only.
* :class:`AcpChecklistMapper` — ACP ``session/update`` of one session: ``plan`` updates,
  and the confirmed exact checklist tool of the runtime behind ACP.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hangar.agents.checklist_rules import ChecklistUpdate
from hangar.agents.checklists import (
    from_acp_plan,
    from_codex_plan_update,
    from_codex_todo_list,
    from_opencode_todos,
)
from hangar.model import Checklist


def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def codex_plan_updated(params: object) -> ChecklistUpdate | None:
    """``turn/plan/updated {threadId, turnId, explanation?, plan}`` → an update owned by
    ``turnId``; ``None`` when the notification names no turn (it cannot be attributed)."""
    turn = _str(_map(params).get("turnId"))
    if turn is None:
        return None
    return ChecklistUpdate(turn, from_codex_plan_update(params), native=True)


class CodexExecMapper:
    """``codex exec --json`` events: a ``todo_list`` item is started, updated on every plan
    change and completed at the end of the turn with its last state. Each distinct state
    is one update; the completion that repeats the last state is not (CL-034). Exec events
    carry no turn id: turns are counted from ``turn.started``."""

    def __init__(self) -> None:
        self.turn = 0
        self._last: dict[str, object] = {}

    def feed(self, event: Mapping[str, Any]) -> ChecklistUpdate | None:
        kind = event.get("type")
        if kind == "turn.started":
            self.turn += 1
            return None
        if kind not in ("item.started", "item.updated", "item.completed"):
            return None
        item = _map(event.get("item"))
        if item.get("type") != "todo_list":
            return None
        item_id = _str(item.get("id")) or "todo_list"
        items = item.get("items")
        if self._last.get(item_id) == items:
            return None
        self._last[item_id] = items
        return ChecklistUpdate(f"exec-turn-{max(self.turn, 1)}", from_codex_todo_list(item))


class OpenCodeEventMapper:
    """SSE events of ``opencode serve`` for one session (``/event`` data objects).

    A request is open from its user ``message.updated`` until the session goes idle. A
    ``todo.updated`` of this session is a native update owned by the open request; outside
    a request (a late event) or from another session (a child) it is dropped (CL-010,
    CL-035, CL-036). A ``todowrite`` tool part is a tool record owned by the request its
    assistant message answers (``parentID``), keyed by its call id.
    """

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.open_turn: str | None = None
        self._parents: dict[str, str] = {}

    def feed(self, event: Mapping[str, Any]) -> ChecklistUpdate | None:
        kind = event.get("type")
        props = _map(event.get("properties"))
        if kind == "message.updated":
            info = _map(props.get("info"))
            if info.get("sessionID") != self.session_id:
                return None
            message_id = _str(info.get("id"))
            if info.get("role") == "user" and message_id:
                self.open_turn = message_id
            parent = _str(info.get("parentID"))
            if info.get("role") == "assistant" and message_id and parent:
                self._parents[message_id] = parent
            return None
        if kind in ("session.idle", "session.status"):
            idle = kind == "session.idle" or _map(props.get("status")).get("type") == "idle"
            if props.get("sessionID") == self.session_id and idle:
                self.open_turn = None
            return None
        if kind == "todo.updated":
            if props.get("sessionID") != self.session_id or self.open_turn is None:
                return None
            todos = from_opencode_todos(props.get("todos"), "opencode.todo")
            return ChecklistUpdate(self.open_turn, todos, native=True)
        if kind == "message.part.updated":
            return self._part(_map(props.get("part")))
        return None

    def _part(self, part: Mapping[str, Any]) -> ChecklistUpdate | None:
        if part.get("type") != "tool" or part.get("tool") != "todowrite":
            return None
        if part.get("sessionID") != self.session_id:
            return None
        state = _map(part.get("state"))
        if state.get("status") != "completed":
            return None
        turn = self._parents.get(_str(part.get("messageID")) or "")
        if turn is None:
            return None
        checklist = from_opencode_todos(state.get("input"), "opencode.todowrite")
        return ChecklistUpdate(turn, checklist, key=_str(part.get("callID")))


class AcpChecklistMapper:
    """ACP ``session/update`` params of one session of one runtime (CL-050: the runtime
    stays the agent's own; ACP is the transport).

    * ``plan`` updates are native updates owned by the prompt open when they arrived.
    * A confirmed exact checklist tool of that runtime (:data:`ACP_CHECKLIST_TOOLS`, e.g.
      OpenCode's ``todowrite``, whose raw input, call id and final status pass through
      ``opencode acp`` 1.18.33 unchanged) commits its raw input once per call id, only when
      the call completes; a frame without input uses the call's earlier one; a failed call
      never commits (CL-015, CL-016, CL-017, CL-048).
    * Everything else — text, plan markdown, status text, ``plan_removed``, other tools —
      never touches the list (CL-022, CL-046, CL-047).
    """

    def __init__(self, session_id: str, runtime: str | None = None) -> None:
        self.session_id = session_id
        self.tools = ACP_CHECKLIST_TOOLS.get(runtime or "", {})
        self._calls: dict[str, tuple[str | None, object]] = {}

    def feed(self, params: Mapping[str, Any], turn: str) -> ChecklistUpdate | None:
        if params.get("sessionId") != self.session_id:
            return None
        update = _map(params.get("update"))
        kind = update.get("sessionUpdate")
        if kind == "plan":
            return ChecklistUpdate(turn, from_acp_plan(update), native=True)
        if kind in ("tool_call", "tool_call_update") and self.tools:
            return self._tool(update, turn)
        return None

    def _tool(self, update: Mapping[str, Any], turn: str) -> ChecklistUpdate | None:
        call_id = _str(update.get("toolCallId"))
        if call_id is None:
            return None
        name, raw = self._calls.get(call_id, (None, None))
        if update.get("sessionUpdate") == "tool_call":
            name = _str(update.get("title"))
        raw_input = update.get("rawInput")
        if isinstance(raw_input, Mapping) and raw_input:
            raw = raw_input
        self._calls[call_id] = (name, raw)
        parse = self.tools.get(name or "")
        if parse is None or update.get("status") != "completed":
            return None
        return ChecklistUpdate(turn, parse(raw), key=f"acp:{call_id}")


def _opencode_todowrite(raw: object) -> Checklist | None:
    return from_opencode_todos(raw, "opencode.todowrite")


#: Exact checklist tools whose ACP tool calls were confirmed on a real agent, by runtime.
ACP_CHECKLIST_TOOLS: dict[str, dict[str, Callable[[object], Checklist | None]]] = {
    "opencode": {"todowrite": _opencode_todowrite},
}
