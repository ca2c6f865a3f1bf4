"""Live mappers on protocol frames shaped like the ones the real agents sent (see
``test_acp.py``, ``test_codex_app_server.py``): the paths the real runs do not reach."""

from __future__ import annotations

from typing import Any

from hangar.agents.checklist_events import AcpChecklistMapper, codex_plan_updated
from hangar.agents.checklist_rules import ChecklistLedger, ChecklistUpdate
from hangar.model import Checklist, ChecklistItem

SID = "ses_parent"


def _update(kind: str, session: str = SID, **fields: Any) -> dict[str, Any]:
    return {"sessionId": session, "update": {"sessionUpdate": kind, **fields}}


def _todos(*contents: str) -> dict[str, Any]:
    return {"todos": [{"content": c, "status": "pending", "priority": "medium"} for c in contents]}


def _committed(frames: list[dict[str, Any]], runtime: str | None = "opencode") -> list[list[str]]:
    mapper = AcpChecklistMapper(SID, runtime)
    updates = [u for f in frames if (u := mapper.feed(f, "prompt-1")) is not None]
    return [[i.content for i in b.items] for _, b in ChecklistLedger().apply(updates)]


def test_acp_plan_updates_and_what_never_counts() -> None:
    """CL-022, CL-023, CL-025, CL-036, CL-045, CL-046, CL-047: a ``plan`` replaces the
    list, an empty one clears, an invalid one keeps; other sessions, ``plan_removed``,
    text with checkboxes and tools of other runtimes never change it."""
    entries = [{"content": "One", "priority": "high", "status": "pending"}]
    frames = [
        _update("plan", entries=entries),
        _update("plan", entries=[{"content": "Bad", "priority": "high", "status": "bogus"}]),
        _update("plan", session="ses_child", entries=[{"content": "Child", "status": "pending"}]),
        _update("plan_removed"),
        _update("agent_message_chunk", content={"type": "text", "text": "- [ ] prose item"}),
        _update("tool_call", toolCallId="c1", title="Checklist", rawInput={"checklist": "- [ ] x"}),
        _update("tool_call_update", toolCallId="c1", status="completed"),
        _update("plan", entries=[]),
    ]
    assert _committed(frames) == [["One"], []]


def test_acp_exact_tool_commits_once_on_success_only() -> None:
    """CL-015, CL-016, CL-017, CL-048: the raw input is kept per call id; a completion
    without input uses it; a failed call never commits; a repeated completion is one update;
    without the runtime the tool is not read at all."""
    frames = [
        _update("tool_call", toolCallId="ok", title="todowrite", rawInput={}),
        _update("tool_call_update", toolCallId="ok", status="in_progress", rawInput=_todos("A")),
        _update("tool_call_update", toolCallId="ok", status="completed", title="1 todos"),
        _update("tool_call_update", toolCallId="ok", status="completed", title="1 todos"),
        _update("tool_call", toolCallId="bad", title="todowrite", rawInput=_todos("Never")),
        _update("tool_call_update", toolCallId="bad", status="failed"),
    ]
    assert _committed(frames) == [["A"]]
    assert _committed(frames, runtime=None) == []


def test_codex_plan_updated_is_owned_by_its_turn() -> None:
    """CL-027, CL-036: the notification's own ``turnId`` owns the update (camelCase
    statuses accepted); without a turn id it cannot be attributed and is dropped; a late
    update of an older turn never changes the newer turn's current list."""
    plan = [{"step": "Write", "status": "inProgress"}, {"step": "Test", "status": "pending"}]
    first = codex_plan_updated({"threadId": "t", "turnId": "turn-1", "plan": plan})
    assert first is not None and first.native and first.turn == "turn-1"
    assert first.checklist is not None
    assert [i.status for i in first.checklist.items] == ["in_progress", "pending"]
    assert codex_plan_updated({"threadId": "t", "plan": plan}) is None
    ledger = ChecklistLedger()
    second = codex_plan_updated(
        {"turnId": "turn-2", "plan": [{"step": "Ship", "status": "pending"}]}
    )
    late = codex_plan_updated(
        {"turnId": "turn-1", "plan": [{"step": "Late", "status": "completed"}]}
    )
    updates: list[ChecklistUpdate] = [u for u in (first, second, late) if u is not None]
    ledger.apply(updates)
    current = ledger.current("turn-2")
    assert current is not None and [i.content for i in current.items] == ["Ship"]
    older = ledger.turn_checklist("turn-1")
    assert older is not None and [i.content for i in older.items] == ["Late"]


def test_a_tool_record_arriving_first_never_wins_over_the_native_event() -> None:
    """CL-033: on a stream with native events, the tool record of a change (here arriving
    first) commits nothing; the native event is what updates the list."""
    tool = ChecklistUpdate(
        "turn-1", Checklist("opencode.todowrite", (ChecklistItem("Step", "pending"),)),
        key="call-1",
    )  # fmt: skip
    native = ChecklistUpdate(
        "turn-1", Checklist("opencode.todo", (ChecklistItem("Step", "pending"),)), native=True
    )
    ledger = ChecklistLedger(native_source=True)
    committed = ledger.apply([tool, native])
    assert [(b.source, [i.content for i in b.items]) for _, b in committed] == [
        ("opencode.todo", ["Step"])
    ]
    stored = ChecklistLedger()  # files hold only the tool record: it commits there
    assert [b.source for _, b in stored.apply([tool])] == ["opencode.todowrite"]
