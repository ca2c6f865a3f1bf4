"""One live turn: what the executor streams about it and what it keeps until it ends.

:class:`LiveTurn` is the :class:`~hangar.agents.turns.TurnObserver` the executor hands an
agent's control. Every event it publishes (SSE event ``runtime.turn``) carries the turn's
identity — ``deviceId``, ``localTaskId``, ``taskId`` and ``subtaskId`` (RW-106) — and never a
path (RW-108). Types:

* ``response.created`` ``{kind: reply|compaction, clientUserMessageId?}``
* ``response.output_text.delta`` / ``response.reasoning_text.delta`` ``{itemId, delta}``
* ``response.tool`` ``{toolUseId, name, status, summary}``; ``response.compaction {status}``
* ``approval.requested {approval}`` / ``approval.resolved {approvalId, decision?}``
* ``guidance.accepted {clientGuidanceId, text}`` (RW-141)
* terminal: ``response.completed``, ``response.failed {error}``, ``response.incomplete
  {reason: "interrupted"}``.

Terminal events are logged where they leave the executor with identity, type and block count
only, never text (RW-117, RW-118). The text streamed so far is kept in memory for a page that
reloads mid-turn; it is never persisted (RW-143): the agent's transcript is the record.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from hangar.agents.turns import Answer, ApprovalDecision, ApprovalRequest, TurnRequest, TurnStatus
from hangar.executor.event_sink import EventSink

log = logging.getLogger("hangar.executor.turns")

TURN_EVENT = "runtime.turn"
TERMINAL = {
    "completed": "response.completed",
    "failed": "response.failed",
    "interrupted": "response.incomplete",
}


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(eq=False)
class PendingApproval:
    request: ApprovalRequest
    answer: Answer
    requested_at: str


@dataclass(eq=False)
class LiveTurn:
    """The executor's view of one turn it asked an agent to run."""

    device_id: str
    local_task_id: str
    runtime: str
    kind: str
    request: TurnRequest | None
    sink: EventSink
    on_finished: Callable[[LiveTurn], None]
    subtask_id: str | None = None
    status: str = "running"
    error: str | None = None
    started_at: str = field(default_factory=now_iso)
    text: list[str] = field(default_factory=list)
    items: set[str] = field(default_factory=set)
    approvals: dict[str, PendingApproval] = field(default_factory=dict)
    _lock: threading.RLock = field(default_factory=threading.RLock)
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def task_id(self) -> str:
        """The unified task identity of a LocalTask: the LocalTask itself (RW-107)."""
        return self.local_task_id

    def identity(self) -> dict[str, Any]:
        return {
            "deviceId": self.device_id,
            "localTaskId": self.local_task_id,
            "taskId": self.task_id,
            "subtaskId": self.subtask_id or "",
        }

    def bind(self, subtask_id: str) -> None:
        """Name the turn (when the executor, not the agent, chooses its id: a manual
        compaction's ``<localTaskId>-context-compact``, RW-148)."""
        with self._lock:
            self.subtask_id = subtask_id

    def _emit(self, kind: str, data: dict[str, Any] | None = None) -> None:
        with self._lock:
            payload = {"type": kind, **self.identity(), **(data or {})}
            if kind in TERMINAL.values():
                log.info(
                    "turn %s forwarded: device=%s task=%s subtask=%s blocks=%d",
                    kind,
                    self.device_id,
                    self.task_id,
                    self.subtask_id,
                    len(self.items),
                )
            self.sink(TURN_EVENT, payload)

    # -- TurnObserver ---------------------------------------------------------------------
    def started(self, subtask_id: str) -> None:
        with self._lock:
            if self.subtask_id is None:
                self.subtask_id = subtask_id
            data: dict[str, Any] = {"kind": self.kind}
            if self.request is not None and self.request.client_user_message_id:
                data["clientUserMessageId"] = self.request.client_user_message_id
            self._emit("response.created", data)

    def text_delta(self, item_id: str, delta: str) -> None:
        with self._lock:
            self.items.add(item_id)
            self.text.append(delta)
            self._emit("response.output_text.delta", {"itemId": item_id, "delta": delta})

    def reasoning_delta(self, item_id: str, delta: str) -> None:
        with self._lock:
            self.items.add(item_id)
            self._emit("response.reasoning_text.delta", {"itemId": item_id, "delta": delta})

    def tool(self, tool_use_id: str, name: str, status: str, summary: str) -> None:
        with self._lock:
            self.items.add(tool_use_id)
            data = {"toolUseId": tool_use_id, "name": name, "status": status, "summary": summary}
            self._emit("response.tool", data)

    def compaction(self, status: str) -> None:
        with self._lock:
            self.items.add("compaction")
            self._emit("response.compaction", {"status": status})

    def approval(self, request: ApprovalRequest, answer: Answer) -> None:
        with self._lock:
            pending = PendingApproval(request, answer, now_iso())
            self.approvals[request.approval_id] = pending
            self._emit("approval.requested", {"approval": approval_json(self, pending)})

    def approval_closed(self, approval_id: str) -> None:
        with self._lock:
            if self.approvals.pop(approval_id, None) is not None:
                self._emit("approval.resolved", {"approvalId": approval_id})

    def finished(self, status: TurnStatus, error: str | None = None) -> None:
        with self._lock:
            if self.done.is_set():
                return
            self.status = status
            self.error = error
            for approval_id in list(self.approvals):
                self.approval_closed(approval_id)
            data: dict[str, Any] = {"blockCount": len(self.items)}
            if status == "failed":
                data["error"] = error or "the turn failed"
            elif status == "interrupted":
                data["reason"] = "interrupted"
            self._emit(TERMINAL[status], data)
            self.done.set()
        self.on_finished(self)

    # -- used by the executor ---------------------------------------------------------------
    def answer(self, approval_id: str, decision: ApprovalDecision) -> bool:
        with self._lock:
            pending = self.approvals.pop(approval_id, None)
            if pending is None:
                return False
            self._emit("approval.resolved", {"approvalId": approval_id, "decision": decision})
        pending.answer(decision)
        return True

    def guidance_accepted(self, client_guidance_id: str, text: str) -> None:
        self._emit("guidance.accepted", {"clientGuidanceId": client_guidance_id, "text": text})

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "localTaskId": self.local_task_id,
                "taskId": self.task_id,
                "subtaskId": self.subtask_id or "",
                "kind": self.kind,
                "status": self.status,
                "startedAt": self.started_at,
                "text": "".join(self.text),
                "error": self.error,
            }


def approval_json(turn: LiveTurn, pending: PendingApproval) -> dict[str, Any]:
    request = pending.request
    return {
        "approvalId": request.approval_id,
        "localTaskId": turn.local_task_id,
        "taskId": turn.task_id,
        "subtaskId": turn.subtask_id or "",
        "kind": request.kind,
        "title": request.title,
        "detail": request.detail,
        "reason": request.reason,
        "decisions": list(request.decisions),
        "requestedAt": pending.requested_at,
    }
