"""Continuing Codex threads on the resident app-server (RW-104, RW-109..114, RW-128..133,
RW-144..152, RW-238, RW-283).

* send: ``thread/resume {threadId}`` (metadata only), the startup watchdog, then
  ``turn/start {threadId, input, model, effort?}``; the input maps the text to a ``text`` item,
  images to ``localImage`` and other files to ``mention`` items (RW-283).
* create: ``thread/start {cwd, model}`` answers the new thread's id, then ``turn/start`` as
  for a send.
* guidance: ``turn/steer {threadId, expectedTurnId, input}`` on the turn this server runs; no
  such turn → ``no_active_turn`` (RW-133).
* cancel: ``turn/interrupt {threadId, turnId}`` for a turn this server runs; a turn running in
  another process cannot be interrupted from here → ``False`` (RW-128).
* compact: ``thread/resume`` then ``thread/compact/start`` (RW-146); its ``contextCompaction``
  item is reported as compaction, never as a message.
* the app-server's notification stream is the event source (RW-238): deltas, items, approvals
  (server requests answered with ``accept`` / ``acceptForSession`` / ``decline``), and
  ``turn/completed``. A server that ends mid-turn fails the turn with its stderr tail.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hangar.agents.codex.app_server import GONE, AppServerError, CodexAppServer
from hangar.agents.codex.resident import ResidentAppServer
from hangar.agents.turns import (
    ApprovalDecision,
    ApprovalRequest,
    GuidanceOutcome,
    StartedTurn,
    TurnObserver,
    TurnRequest,
)
from hangar.agents.watchdog import DEFAULT_TIMEOUT, StartupWatchdog
from hangar.errors import HangarError

REQUEST_TIMEOUT = 60.0
NOT_PROGRESS_ITEMS = frozenset({"userMessage", "hookPrompt"})
"""Item types that are echoes of the input, not the agent's progress (RW-111)."""
PROGRESS_NOTIFICATIONS = frozenset(
    {
        "item/agentMessage/delta",
        "item/reasoning/summaryTextDelta",
        "item/reasoning/summaryPartAdded",
        "item/reasoning/textDelta",
        "item/commandExecution/outputDelta",
        "item/fileChange/outputDelta",
        "item/mcpToolCall/progress",
        "turn/plan/updated",
        "turn/diff/updated",
    }
)
APPROVAL_METHODS = {
    "item/commandExecution/requestApproval": "command",
    "item/fileChange/requestApproval": "file_change",
    "execCommandApproval": "command",
    "applyPatchApproval": "file_change",
}
DECISIONS: dict[ApprovalDecision, str] = {
    "approve": "accept",
    "approve_for_session": "acceptForSession",
    "deny": "decline",
}
LEGACY_DECISIONS: dict[ApprovalDecision, str] = {
    "approve": "approved",
    "approve_for_session": "approved_for_session",
    "deny": "denied",
}


@dataclass(eq=False)
class CodexUnavailable(HangarError):
    """No ``codex`` executable on this device."""

    code = "agent_unavailable"
    http_status = 503

    def render(self) -> str:
        return self.message or "codex is not installed on this device"


@dataclass(eq=False)
class _Active:
    thread_id: str
    observer: TurnObserver
    pid: int | None
    compaction: bool = False
    turn_id: str | None = None
    watchdog: StartupWatchdog | None = None
    error: str | None = None
    done: bool = False
    timed_out: bool = False
    approvals: dict[str, Callable[[], None]] = field(default_factory=dict)
    """Open approvals: id → how to close it on the observer."""
    lock: threading.RLock = field(default_factory=threading.RLock)
    """Held while telling the observer, so it hears ``started`` first and ``finished`` last
    whichever thread (the sender, the reader, the watchdog) gets there first."""


def user_input(request: TurnRequest) -> list[dict[str, Any]]:
    """``turn/start`` input items for the request (RW-283)."""
    items: list[dict[str, Any]] = []
    if request.text:
        items.append({"type": "text", "text": request.text, "text_elements": []})
    for file in request.files:
        if file.is_image:
            items.append({"type": "localImage", "path": str(file.path)})
        else:
            items.append({"type": "mention", "name": file.name, "path": str(file.path)})
    return items


def _tool(item: dict[str, Any]) -> tuple[str, str] | None:
    """``(name, summary)`` of a tool item, ``None`` for items that are not tools."""
    kind = item.get("type")
    if kind == "commandExecution":
        return "shell", str(item.get("command") or "")
    if kind == "fileChange":
        paths = [str(c.get("path", "")) for c in item.get("changes") or [] if isinstance(c, dict)]
        return "apply_patch", ", ".join(p.rsplit("/", 1)[-1] for p in paths)
    if kind == "mcpToolCall":
        return f"{item.get('server')}.{item.get('tool')}", ""
    if kind == "dynamicToolCall":
        return str(item.get("tool") or item.get("name") or "tool"), ""
    if kind == "webSearch":
        return "web_search", str(item.get("query") or "")
    if kind == "imageGeneration":
        # RW-286: an image is never ordinary text output; the transcript carries its payload.
        return "image_generation", str(item.get("revisedPrompt") or "")
    if kind == "imageView":
        return "view_image", ""
    return None


def _tool_status(item: dict[str, Any], completed: bool) -> str:
    if not completed:
        return "running"
    status = str(item.get("status") or "")
    exit_code = item.get("exitCode")
    if status in ("failed", "declined") or (isinstance(exit_code, int) and exit_code != 0):
        return "failed"
    return "done"


class CodexTurns:
    """The turns hangar runs on one resident app-server, by thread id."""

    def __init__(self, host: ResidentAppServer, startup_timeout: float = DEFAULT_TIMEOUT) -> None:
        self.host = host
        self.startup_timeout = startup_timeout
        self._active: dict[str, _Active] = {}
        self._lock = threading.Lock()
        host.listen(self._on_notification)
        host.on_request = self._on_request

    # -- operations ---------------------------------------------------------------------------
    def send(self, thread_id: str, request: TurnRequest, observer: TurnObserver) -> StartedTurn:
        server = self._server()
        server.request(
            "thread/resume", {"threadId": thread_id, "excludeTurns": True}, REQUEST_TIMEOUT
        )
        return self._turn(server, thread_id, request, observer)

    def create(
        self, cwd: Path, request: TurnRequest, observer: TurnObserver
    ) -> tuple[str, StartedTurn]:
        """``thread/start {cwd, model}``, then the first turn on the new thread."""
        server = self._server()
        params: dict[str, Any] = {"cwd": str(cwd), "model": request.model.model_id}
        thread = (server.request("thread/start", params, REQUEST_TIMEOUT).get("thread")) or {}
        thread_id = str(thread.get("id") or "")
        if not thread_id:
            raise AppServerError(method="thread/start", rpc_message="answered no thread id")
        return thread_id, self._turn(server, thread_id, request, observer)

    def _turn(
        self,
        server: CodexAppServer,
        thread_id: str,
        request: TurnRequest,
        observer: TurnObserver,
    ) -> StartedTurn:
        active = self._begin(thread_id, observer, server)
        active.watchdog = StartupWatchdog(self.startup_timeout, lambda: self._stuck(active))
        active.watchdog.start()  # RW-109: before turn/start
        params: dict[str, Any] = {
            "threadId": thread_id,
            "input": user_input(request),
            "model": request.model.model_id,
        }
        if request.model.effort:
            params["effort"] = request.model.effort
        if request.client_user_message_id:
            params["clientUserMessageId"] = request.client_user_message_id
        try:
            result = server.request("turn/start", params, REQUEST_TIMEOUT)
        except HangarError:
            self._forget(active)
            if active.done:  # the watchdog or a dead server ended it: already reported
                return StartedTurn(active.turn_id or "")
            raise
        turn = result.get("turn") or {}
        turn_id = str(turn.get("id") or active.turn_id or "")
        self._adopt(active, turn_id)
        return StartedTurn(turn_id)

    def compact(self, thread_id: str, observer: TurnObserver) -> StartedTurn:
        server = self._server()
        server.request(
            "thread/resume", {"threadId": thread_id, "excludeTurns": True}, REQUEST_TIMEOUT
        )
        active = self._begin(thread_id, observer, server, compaction=True)
        try:
            server.request("thread/compact/start", {"threadId": thread_id}, REQUEST_TIMEOUT)
        except HangarError:
            self._forget(active)
            raise
        return StartedTurn(active.turn_id or "")

    def steer(self, thread_id: str, text: str, client_id: str) -> GuidanceOutcome:
        active = self._running(thread_id)
        server = self.host.get() if active is not None else None
        if active is None or server is None or active.compaction or active.turn_id is None:
            return "no_active_turn"
        params: dict[str, Any] = {
            "threadId": thread_id,
            "expectedTurnId": active.turn_id,
            "input": [{"type": "text", "text": text, "text_elements": []}],
            "clientUserMessageId": client_id,
        }
        try:
            server.request("turn/steer", params, REQUEST_TIMEOUT)
        except AppServerError as exc:
            if "no active turn" in exc.rpc_message or "expected" in exc.rpc_message.lower():
                return "no_active_turn"
            raise
        return "accepted"

    def interrupt(self, thread_id: str) -> bool:
        active = self._running(thread_id)
        if active is None or active.turn_id is None or not self.host.running():
            return False  # RW-128: not a turn this server runs
        server = self.host.get()
        assert server is not None
        try:
            server.request(
                "turn/interrupt", {"threadId": thread_id, "turnId": active.turn_id}, REQUEST_TIMEOUT
            )
        except AppServerError as exc:
            if "no active turn" in exc.rpc_message:
                return False
            raise
        return True

    def running(self, thread_id: str) -> bool:
        return self._running(thread_id) is not None

    def busy(self) -> bool:
        with self._lock:
            return any(not a.done for a in self._active.values())

    # -- bookkeeping --------------------------------------------------------------------------
    def _server(self) -> CodexAppServer:
        server = self.host.get()  # RW-114: a stuck server was ended; this starts a new one
        if server is None:
            raise CodexUnavailable()
        return server

    def _begin(
        self,
        thread_id: str,
        observer: TurnObserver,
        server: CodexAppServer,
        compaction: bool = False,
    ) -> _Active:
        pid = server.process.pid if server.process is not None else None
        active = _Active(thread_id, observer, pid, compaction=compaction)
        with self._lock:
            self._active[thread_id] = active
        return active

    def _forget(self, active: _Active) -> None:
        if active.watchdog is not None:
            active.watchdog.close()
        with self._lock:
            if self._active.get(active.thread_id) is active:
                del self._active[active.thread_id]

    def _running(self, thread_id: str) -> _Active | None:
        with self._lock:
            active = self._active.get(thread_id)
        return active if active is not None and not active.done else None

    def _adopt(self, active: _Active, turn_id: str) -> None:
        """Learn the turn's id (from ``turn/started`` or the ``turn/start`` answer, whichever
        comes first) and tell the observer once."""
        with active.lock:
            if active.turn_id is not None or active.done:
                return
            active.turn_id = turn_id
            active.observer.started(turn_id)

    def _finish(self, active: _Active, status: str, error: str | None) -> None:
        with active.lock:
            if active.done:
                return
            if active.turn_id is None:
                # A turn that ends before Codex named it (a server that died at once): the
                # observer still hears one started before its finished.
                active.turn_id = ""
                active.observer.started("")
            active.done = True
            approvals = list(active.approvals.values())
            active.approvals.clear()
            if active.watchdog is not None:
                active.watchdog.close()
            for close in approvals:
                close()
            if status == "completed":
                active.observer.finished("completed")
            elif status == "interrupted":
                active.observer.finished("interrupted", error)
            else:
                active.observer.finished("failed", error or active.error or "the turn failed")
        self._forget(active)

    def _stuck(self, active: _Active) -> None:
        """RW-113: no effective progress in time: end the stuck server, fail the turn."""
        seconds = f"{self.startup_timeout:g}"
        active.error = (
            f"Codex showed no progress within {seconds}s after the turn was sent; its "
            "app-server was stopped. Retry to send the same message again."
        )
        active.timed_out = True
        # The server is detached from the host before it is killed, so nothing reaches it
        # again; its end fails the turn with the message above (or the line below does).
        if active.pid is not None and self.host.pid == active.pid:
            self.host.restart()
        self._finish(active, "failed", active.error)

    # -- the notification stream (RW-238) ----------------------------------------------------
    def _on_notification(self, message: dict[str, Any]) -> None:
        method = str(message.get("method") or "")
        params = message.get("params") or {}
        if method == GONE:
            self._server_gone(params)
            return
        thread_id = params.get("threadId")
        if not isinstance(thread_id, str):
            thread = params.get("thread")
            thread_id = thread.get("id") if isinstance(thread, dict) else None
        with self._lock:
            active = self._active.get(thread_id) if isinstance(thread_id, str) else None
        if active is None:
            return
        with active.lock:
            if not active.done:
                self._event(active, method, params)

    def _event(self, active: _Active, method: str, params: dict[str, Any]) -> None:
        turn_id = params.get("turnId")
        if isinstance(turn_id, str) and active.turn_id and turn_id != active.turn_id:
            return  # an older turn's late event
        if method == "turn/started":
            turn = params.get("turn") or {}
            self._adopt(active, str(turn.get("id") or ""))
        elif method == "turn/completed":
            turn = params.get("turn") or {}
            if active.turn_id and turn.get("id") != active.turn_id:
                return
            error = turn.get("error")
            text = error.get("message") if isinstance(error, dict) else None
            self._finish(active, str(turn.get("status") or "completed"), text or active.error)
        elif method == "error":
            error = params.get("error") or {}
            if not params.get("willRetry"):
                active.error = str(error.get("message") or "codex reported an error")
        else:
            self._progress(active, method, params)

    def _progress(self, active: _Active, method: str, params: dict[str, Any]) -> None:
        observer = active.observer
        item = params.get("item") if isinstance(params.get("item"), dict) else None
        effective = method in PROGRESS_NOTIFICATIONS or (
            method in ("item/started", "item/completed")
            and item is not None
            and item.get("type") not in NOT_PROGRESS_ITEMS
            and not str(item.get("type") or "").startswith("collab")  # sub-agents (RW-111)
        )
        if active.watchdog is not None:
            active.watchdog.progress(effective)
        if method == "item/agentMessage/delta":
            observer.text_delta(str(params.get("itemId") or ""), str(params.get("delta") or ""))
        elif method in ("item/reasoning/summaryTextDelta", "item/reasoning/textDelta"):
            observer.reasoning_delta(
                str(params.get("itemId") or ""), str(params.get("delta") or "")
            )
        elif item is not None and method in ("item/started", "item/completed"):
            completed = method == "item/completed"
            if item.get("type") == "contextCompaction":
                observer.compaction("done" if completed else "running")
                return
            tool = _tool(item)
            if tool is not None:
                name, summary = tool
                observer.tool(
                    str(item.get("id") or ""), name, _tool_status(item, completed), summary
                )

    def _server_gone(self, params: dict[str, Any]) -> None:
        pid = params.get("pid")
        with self._lock:
            lost = [a for a in self._active.values() if not a.done and a.pid == pid]
        tail = str(params.get("stderr") or "").strip().splitlines()
        detail = f": {tail[-1][:300]}" if tail else ""
        for active in lost:
            why = active.error if active.timed_out else None
            self._finish(
                active, "failed", why or f"the codex app-server exited during the turn{detail}"
            )

    # -- approvals ----------------------------------------------------------------------------
    def _on_request(self, message: dict[str, Any]) -> bool:
        method = str(message.get("method") or "")
        kind = APPROVAL_METHODS.get(method)
        params = message.get("params") or {}
        thread_id = params.get("threadId") or params.get("conversationId")
        with self._lock:
            active = self._active.get(thread_id) if isinstance(thread_id, str) else None
        if kind is None or active is None or active.done:
            return False
        request_id = message["id"]
        approval_id = str(
            params.get("approvalId") or params.get("itemId") or params.get("callId") or request_id
        )
        legacy = method in ("execCommandApproval", "applyPatchApproval")
        request = _approval(kind, approval_id, params)
        if active.watchdog is not None:
            active.watchdog.progress(True)  # the model asked to act: it is working
        answered = threading.Event()

        def answer(decision: ApprovalDecision) -> None:
            if answered.is_set():
                return
            answered.set()
            with active.lock:
                active.approvals.pop(approval_id, None)
            value = (LEGACY_DECISIONS if legacy else DECISIONS)[decision]
            server = self.host.get() if self.host.pid == active.pid else None
            if server is not None:
                server.respond(request_id, {"decision": value})

        with active.lock:
            if active.done:
                return False
            active.approvals[approval_id] = lambda: active.observer.approval_closed(approval_id)
            active.observer.approval(request, answer)
        return True


def _approval(kind: str, approval_id: str, params: dict[str, Any]) -> ApprovalRequest:
    reason = params.get("reason")
    if kind == "command":
        command = params.get("command")
        if isinstance(command, list):
            command = " ".join(str(part) for part in command)
        return ApprovalRequest(
            approval_id, "command", "Run a command", str(command or ""), reason or None
        )
    changes = params.get("changes") or params.get("fileChanges") or {}
    files = (
        sorted(str(path).rsplit("/", 1)[-1] for path in changes)
        if isinstance(changes, dict)
        else []
    )
    return ApprovalRequest(
        approval_id, "file_change", "Change files", ", ".join(files), reason or None
    )
