"""Continuing this device's tasks: send, cancel, guidance, compact, goals, models, approvals.

:class:`TurnService` locates a task by its ``localTaskId`` alone (its runtime handle comes from
the index; the workspace path is passed to the agent as directory context only, RW-129/134) and
acts through the agent's resident control facet. It holds the device's live turns — at most one
per task: a second send while one runs is refused ``busy`` (the UI queues instead, RW-124) —
their open approval requests (so a page that reloads finds them again), and the input of each
task's last failed turn, so a retry sends exactly that input again (RW-116).

Every send carries the model chosen for it (RW-119): the executor checks it against what the
agent offers now and never falls back to a default or an earlier turn's model (RW-120, RW-121).
The *list* of offered models is kept for a minute; the selection never is.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from hangar.agents.control import AgentControl, ControlUnsupported
from hangar.agents.turns import (
    ApprovalDecision,
    GuidanceOutcome,
    InputFile,
    ModelChoice,
    ModelOption,
    TurnRequest,
)
from hangar.errors import HangarError, NotFoundError, UsageError
from hangar.executor.event_sink import EventSink
from hangar.executor.task_index import TaskIndex
from hangar.executor.turn_stream import LiveTurn, approval_json

MODELS_TTL = 60.0
COMPACT_SUFFIX = "-context-compact"


@dataclass(eq=False)
class TaskBusy(HangarError):
    """A turn is already running for this task (HTTP 409 ``busy``)."""

    local_task_id: str = ""
    code: ClassVar[str] = "busy"
    http_status: ClassVar[int] = 409

    def render(self) -> str:
        return self.message or (
            f"task {self.local_task_id} is still replying; queue the message or wait for the "
            "reply to finish"
        )

    def details(self) -> dict[str, Any]:
        return {"localTaskId": self.local_task_id}


@dataclass(frozen=True)
class TaskTarget:
    local_task_id: str
    runtime: str
    handle: dict[str, str]
    cwd: Path | None


ControlLookup = Callable[[str], AgentControl | None]


class TurnService:
    def __init__(
        self,
        index: TaskIndex,
        controls: ControlLookup,
        device_id: str,
        sink: EventSink,
        on_changed: Callable[[str], None] | None = None,
    ) -> None:
        self.index = index
        self.controls = controls
        self.device_id = device_id
        self.sink = sink
        self.on_changed = on_changed
        self._live: dict[str, LiveTurn] = {}
        self._failed: dict[str, tuple[str, TurnRequest]] = {}
        self._models: dict[str, tuple[float, list[ModelOption]]] = {}
        self._lock = threading.Lock()

    # -- locating -------------------------------------------------------------------------
    def target(self, local_task_id: str) -> TaskTarget:
        row = self.index.row(local_task_id)
        handle = {str(k): str(v) for k, v in json.loads(row["runtime_handle"]).items()}
        workspace = row["workspace_path"]
        cwd = Path(workspace) if workspace and Path(workspace).is_dir() else None
        return TaskTarget(local_task_id, row["runtime"], handle, cwd)

    def control(self, target: TaskTarget, operation: str) -> AgentControl:
        control = self.controls(target.runtime)
        if control is None or operation not in control.operations:
            raise ControlUnsupported(runtime=target.runtime, operation=operation)
        return control

    # -- models (RW-119..123) ---------------------------------------------------------------
    def models(self, local_task_id: str) -> tuple[str, list[ModelOption], list[str]]:
        target = self.target(local_task_id)
        control = self.controls(target.runtime)
        operations: list[str] = sorted(control.operations) if control is not None else []
        if control is None or "models" not in control.operations:
            return target.runtime, [], operations
        return target.runtime, self._offered(target.runtime, control), operations

    def _offered(
        self, runtime: str, control: AgentControl, fresh: bool = False
    ) -> list[ModelOption]:
        with self._lock:
            cached = self._models.get(runtime)
        if cached is not None and not fresh and time.monotonic() - cached[0] < MODELS_TTL:
            return cached[1]
        offered = control.models()
        with self._lock:
            self._models[runtime] = (time.monotonic(), offered)
        return offered

    def check_model(
        self, runtime: str, control: AgentControl, model: ModelChoice | None
    ) -> ModelChoice:
        """The turn's own selection, checked against what the agent offers (RW-121)."""
        if model is None or not model.model_id:
            raise UsageError(
                "every send needs a model: pick one in the model picker "
                "(nothing falls back to a default or an earlier turn's model)"
            )
        if "models" not in control.operations:
            return model
        offered = self._offered(runtime, control)
        match = [m for m in offered if m.id == model.model_id]
        if not match:
            match = [
                m for m in self._offered(runtime, control, fresh=True) if m.id == model.model_id
            ]
        if not match or (model.model_type and all(m.model_type != model.model_type for m in match)):
            names = ", ".join(m.id for m in offered[:12]) or "none"
            raise UsageError(
                f"{runtime} does not offer the model {model.model_id!r} (offered: {names})"
            )
        effort = model.effort
        if effort and match[0].efforts and effort not in match[0].efforts:
            allowed = ", ".join(match[0].efforts)
            raise UsageError(f"model {model.model_id!r} takes effort {allowed}, not {effort!r}")
        return model

    # -- send / retry (RW-102..116) ---------------------------------------------------------
    def send(
        self,
        local_task_id: str,
        text: str,
        model: ModelChoice | None,
        files: tuple[InputFile, ...] = (),
        client_user_message_id: str | None = None,
        retry_of: str | None = None,
    ) -> LiveTurn:
        target = self.target(local_task_id)
        control = self.control(target, "send")
        model = self.check_model(target.runtime, control, model)
        if retry_of is not None:
            failed = self._failed.get(local_task_id)
            if failed is None or failed[0] != retry_of:
                raise NotFoundError(
                    kind="failed turn",
                    key=retry_of,
                    message=f"no failed turn {retry_of} to retry for task {local_task_id}",
                )
            base = failed[1]
            request = TurnRequest(
                base.text, model, base.files, base.client_user_message_id, target.cwd
            )
        else:
            if not text.strip() and not files:
                raise UsageError("a message needs text or an attachment")
            request = TurnRequest(text, model, files, client_user_message_id, target.cwd)
        turn = self._begin(target, "reply", request)
        try:
            started = control.send(target.handle, request, turn)
        except BaseException:
            self._drop(turn)
            raise
        if turn.subtask_id is None:
            turn.bind(started.subtask_id)
        return turn

    # -- create (RW-272..281) ----------------------------------------------------------------
    def offered(self, runtime: str) -> list[ModelOption]:
        """The models ``runtime`` offers now (for a task not created yet)."""
        control = self.controls(runtime)
        if control is None or "models" not in control.operations:
            return []
        return self._offered(runtime, control)

    def create(
        self,
        target: TaskTarget,
        request: TurnRequest,
        link: Callable[[dict[str, str]], None],
    ) -> LiveTurn:
        """Start a new session for the registered task ``target`` with ``request`` as its
        first turn. Returns at once: the agent starts in the background (Codex answers the
        thread id first, then runs the turn); ``link`` receives the session's handle as soon
        as the agent names it; a failure ends the turn ``failed`` with the reason."""
        control = self.control(target, "create")
        if target.cwd is None:
            raise UsageError("a new task needs an existing directory")
        cwd = target.cwd
        turn = self._begin(target, "reply", request)

        def run() -> None:
            try:
                handle, started = control.create(cwd, request, turn)
                link(handle)
                if turn.subtask_id is None:
                    turn.bind(started.subtask_id)
            except Exception as exc:  # reported on the turn: the client already shows it
                message = exc.render() if isinstance(exc, HangarError) else str(exc)
                if turn.subtask_id is None:
                    turn.started("")
                turn.finished("failed", message or type(exc).__name__)

        threading.Thread(target=run, name="hangar-create", daemon=True).start()
        return turn

    def _begin(self, target: TaskTarget, kind: str, request: TurnRequest | None) -> LiveTurn:
        turn = LiveTurn(
            device_id=self.device_id,
            local_task_id=target.local_task_id,
            runtime=target.runtime,
            kind=kind,
            request=request,
            sink=self.sink,
            on_finished=self._finished,
        )
        with self._lock:
            running = self._live.get(target.local_task_id)
            if running is not None and not running.done.is_set():
                raise TaskBusy(local_task_id=target.local_task_id)
            self._live[target.local_task_id] = turn
        return turn

    def _drop(self, turn: LiveTurn) -> None:
        with self._lock:
            if self._live.get(turn.local_task_id) is turn:
                del self._live[turn.local_task_id]

    def _finished(self, turn: LiveTurn) -> None:
        with self._lock:
            if turn.kind == "reply" and turn.request is not None:
                if turn.status == "failed" and turn.subtask_id is not None:
                    self._failed[turn.local_task_id] = (turn.subtask_id, turn.request)
                elif turn.status == "completed":
                    self._failed.pop(turn.local_task_id, None)
            if self._live.get(turn.local_task_id) is turn:
                del self._live[turn.local_task_id]
        if self.on_changed is not None:
            self.on_changed(turn.local_task_id)

    # -- cancel, guidance, compact, goal -----------------------------------------------------
    def cancel(self, local_task_id: str) -> bool:
        target = self.target(local_task_id)
        control = self.control(target, "cancel")
        return control.cancel(target.handle)

    def guidance(self, local_task_id: str, text: str, client_guidance_id: str) -> GuidanceOutcome:
        target = self.target(local_task_id)
        control = self.control(target, "guidance")
        with self._lock:
            turn = self._live.get(local_task_id)
        if turn is None or turn.done.is_set() or turn.kind != "reply":
            return "no_active_turn"  # RW-133: the UI sends it as an ordinary follow-up
        outcome = control.guidance(target.handle, text, client_guidance_id)
        if outcome == "accepted":
            turn.guidance_accepted(client_guidance_id, text)
        return outcome

    def compact(self, local_task_id: str) -> LiveTurn:
        target = self.target(local_task_id)
        control = self.control(target, "compact")
        turn = self._begin(target, "compaction", None)
        turn.bind(local_task_id + COMPACT_SUFFIX)  # RW-148: its own subtask id
        try:
            control.compact(target.handle, turn, target.cwd)
        except BaseException:
            self._drop(turn)
            raise
        return turn

    def goal(self, local_task_id: str) -> dict[str, Any] | None:
        target = self.target(local_task_id)
        return self.control(target, "goal").goal(target.handle)

    # -- live state ---------------------------------------------------------------------------
    def live(self, local_task_id: str | None = None) -> list[LiveTurn]:
        with self._lock:
            turns = list(self._live.values())
        return [t for t in turns if local_task_id is None or t.local_task_id == local_task_id]

    def activity(self, local_task_id: str | None = None) -> dict[str, Any]:
        turns = self.live(local_task_id)
        approvals = [approval_json(t, p) for t in turns for p in list(t.approvals.values())]
        return {"turns": [t.snapshot() for t in turns], "approvals": approvals}

    def answer(self, local_task_id: str, approval_id: str, decision: ApprovalDecision) -> None:
        for turn in self.live(local_task_id):
            if turn.answer(approval_id, decision):
                return
        raise NotFoundError(
            kind="approval",
            key=approval_id,
            message=f"no open approval {approval_id} (answered already, or the turn ended)",
        )

    def wait_idle(self, local_task_id: str, timeout: float) -> bool:
        """Wait until the task has no live turn (tests and the CLI)."""
        deadline = time.monotonic() + timeout
        for turn in self.live(local_task_id):
            if not turn.done.wait(max(0.0, deadline - time.monotonic())):
                return False
        return True


def new_client_id() -> str:
    return uuid.uuid4().hex
