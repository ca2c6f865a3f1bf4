"""OpenCode's control facet: continuing a session through ``opencode serve``.

* ``send`` → ``POST /session/{id}/prompt_async?directory=…`` with the text (and files as
  ``file`` parts) and the turn's ``{providerID, modelID}``. The turn is followed on the server's
  event stream: the new user message names the turn (its id is the turn's id in the
  transcript), text and reasoning parts stream their deltas, tool parts report running/done,
  ``permission.asked`` is an approval (answered ``once`` / ``always`` / ``reject``), and
  ``session.idle`` (or ``session.error``) ends it.
* ``create`` → ``POST /session?directory=…`` (the new session's id is its handle), then the
  first turn as a send.
* ``cancel`` → ``POST /session/{id}/abort`` for a turn hangar runs.
* ``models`` → ``GET /config/providers``: every provider's models (``modelType`` is the
  provider id).
* guidance and compaction are not offered (OpenCode's ``summarize`` needs a model, and a
  compaction must not reuse an earlier turn's): ``not_supported``.
"""

from __future__ import annotations

import base64
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from hangar.agents.control import AgentControl, Handle, Operation
from hangar.agents.opencode.serve import OpenCodeHttpError, OpenCodeServer, with_directory
from hangar.agents.turns import (
    ApprovalDecision,
    ApprovalRequest,
    ModelOption,
    StartedTurn,
    TurnObserver,
    TurnRequest,
)
from hangar.errors import UsageError

START_WAIT = 30.0
REPLIES = {"approve": "once", "approve_for_session": "always", "deny": "reject"}


@dataclass(eq=False)
class _Turn:
    session_id: str
    directory: str | None
    observer: TurnObserver
    user_id: str | None = None
    assistants: set[str] = field(default_factory=set)
    parts: dict[str, str] = field(default_factory=dict)
    tools: dict[str, str] = field(default_factory=dict)
    aborted: bool = False
    error: str | None = None
    done: bool = False
    named: threading.Event = field(default_factory=threading.Event)
    approvals: set[str] = field(default_factory=set)
    lock: threading.RLock = field(default_factory=threading.RLock)


def prompt_parts(request: TurnRequest) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if request.text:
        parts.append({"type": "text", "text": request.text})
    for file in request.files:
        data = base64.b64encode(file.path.read_bytes()).decode("ascii")
        parts.append(
            {
                "type": "file",
                "mime": file.mime_type,
                "filename": file.name,
                "url": f"data:{file.mime_type};base64,{data}",
            }
        )
    return parts


class OpenCodeControl(AgentControl):
    runtime: ClassVar[str] = "opencode"
    operations: ClassVar[frozenset[Operation]] = frozenset({"send", "create", "cancel", "models"})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.server = OpenCodeServer(self.launcher)
        self.server.listen(self._event)
        self._turns: dict[str, _Turn] = {}
        self._lock = threading.Lock()

    def _session(self, handle: Handle) -> str:
        session = handle.get("sessionId")
        if not session:
            raise UsageError("this OpenCode task has no session id")
        return session

    def models(self) -> list[ModelOption]:
        answer = self.server.request("GET", "/config/providers") or {}
        defaults = answer.get("default") or {}
        found: list[ModelOption] = []
        for provider in answer.get("providers") or []:
            provider_id = str(provider.get("id"))
            provider_name = provider.get("name") or provider_id
            for model_id, model in (provider.get("models") or {}).items():
                found.append(
                    ModelOption(
                        id=str(model_id),
                        display_name=f"{provider_name}: {model.get('name') or model_id}",
                        model_type=provider_id,
                        is_default=defaults.get(provider_id) == model_id,
                    )
                )
        return found

    def send(self, handle: Handle, request: TurnRequest, observer: TurnObserver) -> StartedTurn:
        session = self._session(handle)
        if not request.model.model_type:
            raise UsageError(
                "an OpenCode model needs its provider (modelType), e.g. the one listed"
            )
        directory = str(request.cwd) if request.cwd is not None else None
        turn = _Turn(session, directory, observer)
        with self._lock:
            running = self._turns.get(session)
            if running is not None and not running.done:
                raise UsageError(f"OpenCode session {session} is already running a turn")
            self._turns[session] = turn
        body = {
            "parts": prompt_parts(request),
            "model": {"providerID": request.model.model_type, "modelID": request.model.model_id},
        }
        try:
            self.server.request(
                "POST", with_directory(f"/session/{session}/prompt_async", directory), body
            )
        except BaseException:
            with self._lock:
                self._turns.pop(session, None)
            raise
        turn.named.wait(START_WAIT)
        return StartedTurn(turn.user_id or "")

    def create(
        self, cwd: Path, request: TurnRequest, observer: TurnObserver
    ) -> tuple[dict[str, str], StartedTurn]:
        if not request.model.model_type:
            raise UsageError(
                "an OpenCode model needs its provider (modelType), e.g. the one listed"
            )
        info = self.server.request("POST", with_directory("/session", str(cwd)), {})
        session = str(info.get("id") or "") if isinstance(info, dict) else ""
        if not session:
            raise OpenCodeHttpError(f"opencode serve: POST /session answered no id: {info!r}")
        handle = {"sessionId": session}
        return handle, self.send(handle, request, observer)

    def cancel(self, handle: Handle) -> bool:
        session = handle.get("sessionId") or ""
        with self._lock:
            turn = self._turns.get(session)
        if turn is None or turn.done:
            return False
        turn.aborted = True
        self.server.request("POST", with_directory(f"/session/{session}/abort", turn.directory))
        return True

    def close(self) -> None:
        self.server.close()

    # -- the event stream -------------------------------------------------------------------
    def _event(self, event: dict[str, Any]) -> None:
        inner = event.get("payload")
        payload: dict[str, Any] = inner if isinstance(inner, dict) else event
        kind = str(payload.get("type") or "")
        props = payload.get("properties") or {}
        if not isinstance(props, dict):
            return
        session = props.get("sessionID")
        if not isinstance(session, str):
            part = props.get("part")
            session = part.get("sessionID") if isinstance(part, dict) else None
        with self._lock:
            turn = self._turns.get(session) if isinstance(session, str) else None
        if turn is None:
            return
        with turn.lock:
            if not turn.done:
                self._turn_event(turn, kind, props)

    def _turn_event(self, turn: _Turn, kind: str, props: dict[str, Any]) -> None:
        observer = turn.observer
        if kind == "message.updated":
            info = props.get("info") or {}
            if info.get("role") == "user" and turn.user_id is None:
                turn.user_id = str(info.get("id"))
                observer.started(turn.user_id)
                turn.named.set()
            elif info.get("role") == "assistant" and info.get("parentID") == turn.user_id:
                turn.assistants.add(str(info.get("id")))
                error = info.get("error")
                if isinstance(error, dict):
                    data = error.get("data")
                    message = data.get("message") if isinstance(data, dict) else None
                    turn.error = str(message or error.get("name") or "OpenCode reported an error")
        elif turn.user_id is None:
            return
        elif kind == "message.part.updated":
            part = props.get("part") or {}
            if part.get("messageID") not in turn.assistants:
                return
            part_id = str(part.get("id"))
            turn.parts[part_id] = str(part.get("type"))
            if part.get("type") == "tool":
                self._tool(turn, part)
            elif part.get("type") == "compaction":
                observer.compaction("done")
        elif kind == "message.part.delta":
            if props.get("messageID") not in turn.assistants or props.get("field") != "text":
                return
            part_id = str(props.get("partID"))
            delta = str(props.get("delta") or "")
            if turn.parts.get(part_id) == "reasoning":
                observer.reasoning_delta(part_id, delta)
            else:
                observer.text_delta(part_id, delta)
        elif kind == "permission.asked":
            self._permission(turn, props)
        elif kind == "permission.replied":
            request_id = str(props.get("requestID") or props.get("permissionID") or "")
            if request_id in turn.approvals:
                turn.approvals.discard(request_id)
                observer.approval_closed(request_id)
        elif kind == "session.error":
            error = props.get("error") or {}
            data = error.get("data") if isinstance(error, dict) else None
            message = data.get("message") if isinstance(data, dict) else None
            turn.error = str(message or "OpenCode reported an error")
        elif kind == "session.idle" or (
            kind == "session.status" and (props.get("status") or {}).get("type") == "idle"
        ):
            self._finish(turn)

    def _tool(self, turn: _Turn, part: dict[str, Any]) -> None:
        state = part.get("state") or {}
        status = str(state.get("status") or "")
        mapped = {"completed": "done", "error": "failed"}.get(status, "running")
        call = str(part.get("callID") or part.get("id"))
        if turn.tools.get(call) == mapped:
            return
        turn.tools[call] = mapped
        summary = state.get("title") or (state.get("input") or {}).get("command") or ""
        turn.observer.tool(call, str(part.get("tool") or "tool"), mapped, str(summary)[:300])

    def _permission(self, turn: _Turn, props: dict[str, Any]) -> None:
        request_id = str(props.get("id") or "")
        patterns = props.get("patterns") or []
        detail = ", ".join(str(p) for p in patterns) if isinstance(patterns, list) else ""
        approval = ApprovalRequest(
            approval_id=request_id,
            kind="tool",
            title=str(props.get("permission") or props.get("type") or "permission"),
            detail=detail or str(props.get("title") or ""),
        )
        answered = threading.Event()

        def answer(decision: ApprovalDecision) -> None:
            if answered.is_set():
                return
            answered.set()
            path = f"/session/{turn.session_id}/permissions/{request_id}"
            self.server.request(
                "POST", with_directory(path, turn.directory), {"response": REPLIES[decision]}
            )

        turn.approvals.add(request_id)
        turn.observer.approval(approval, answer)

    def _finish(self, turn: _Turn) -> None:
        turn.done = True
        for request_id in list(turn.approvals):
            turn.observer.approval_closed(request_id)
        turn.approvals.clear()
        if turn.aborted:
            turn.observer.finished("interrupted", turn.error)
        elif turn.error:
            turn.observer.finished("failed", turn.error)
        else:
            turn.observer.finished("completed")
        with self._lock:
            if self._turns.get(turn.session_id) is turn:
                del self._turns[turn.session_id]
