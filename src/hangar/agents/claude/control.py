"""Claude Code's control facet: continuing a session with ``--resume`` over stream-json.

Why the stream-json protocol directly, not the ``claude-agent-sdk`` package: the SDK starts the
CLI itself (through anyio) where hangar must start every agent through its launcher seam (the
test kit's loopback-only sandbox, a device's own ``PATH``); its wheels bundle their own copy of
the CLI binary (2.1.240 in the current release) beside the one the user installed and pinned;
and it is asyncio while the executor is threaded. The part hangar needs — ``initialize``, one
user message, the permission callback, ``interrupt`` and the output lines — is a small,
documented protocol (:mod:`hangar.agents.claude.live`).

* ``create`` → the same stream-json run with ``--session-id`` set to a new UUID, so the
  session's id (its handle) is known before the CLI writes anything.
* ``send`` → one CLI process per turn (:class:`~hangar.agents.claude.live.ClaudeRun`), in the
  session's directory, with the turn's model (``--model``).
* ``cancel`` → the ``interrupt`` control request to the turn hangar runs; ``False`` when it
  runs none for the session.
* ``compact`` → Claude's own ``/compact`` command (the CLI runs it; it never reaches the model
  as a user message), reported as a compaction.
* ``models`` → the ``models`` the CLI lists in its ``initialize`` answer.
* ``fork`` → the CLI's own fork through a turn, ``--resume-session-at`` with
  ``--fork-session`` and a ``/rename`` that names the copy (:mod:`hangar.agents.claude.fork`).
* guidance is Codex's (``turn/steer``): Claude answers ``not_supported``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Any, ClassVar

from hangar.agents.claude.fork import check_fork, fork_args, fork_point
from hangar.agents.claude.live import ClaudeRun, end_group, stream_args
from hangar.agents.control import AgentControl, ForkedSession, Handle, Operation
from hangar.agents.turns import ModelOption, StartedTurn, TurnObserver, TurnRequest
from hangar.errors import HangarError, NotFoundError, UsageError

MODELS_TIMEOUT = 60.0


class ClaudeUnavailable(HangarError):
    code: ClassVar[str] = "agent_unavailable"
    http_status: ClassVar[int] = 503

    def render(self) -> str:
        return self.message or "claude is not installed on this device"


def user_content(request: TurnRequest) -> str | list[dict[str, Any]]:
    """The user message: text, images as base64 blocks, other files named by path."""
    if not request.files:
        return request.text
    blocks: list[dict[str, Any]] = []
    if request.text:
        blocks.append({"type": "text", "text": request.text})
    for file in request.files:
        if file.is_image:
            data = base64.b64encode(file.path.read_bytes()).decode("ascii")
            source = {"type": "base64", "media_type": file.mime_type, "data": data}
            blocks.append({"type": "image", "source": source})
        else:
            blocks.append({"type": "text", "text": f"Attached file {file.name}: {file.path}"})
    return blocks


class ClaudeControl(AgentControl):
    runtime: ClassVar[str] = "claude"
    operations: ClassVar[frozenset[Operation]] = frozenset(
        {"send", "create", "cancel", "compact", "models", "fork"}
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._runs: dict[str, ClaudeRun] = {}
        self._lock = threading.Lock()

    def _session(self, handle: Handle) -> str:
        session = handle.get("sessionId")
        if not session:
            raise UsageError("this Claude task has no session id to resume")
        return session

    def _start(
        self,
        session: str,
        cwd: Path | None,
        model: str | None,
        observer: TurnObserver,
        compaction: bool,
        new: bool = False,
    ) -> ClaudeRun:
        if cwd is None:
            raise UsageError(
                "the task's directory is gone; Claude resumes a session only in its directory"
            )
        with self._lock:
            running = self._runs.get(session)
            if running is not None and not running.finished.is_set():
                raise UsageError(f"Claude session {session} is already running a turn")
        process = self.launcher.launch("claude", stream_args(session, model, new=new), cwd=cwd)
        if process is None:
            raise ClaudeUnavailable()
        run = ClaudeRun(process, observer, self._ended, compaction=compaction)
        with self._lock:
            self._runs[session] = run
        return run

    def _ended(self, run: ClaudeRun) -> None:
        with self._lock:
            for session, known in list(self._runs.items()):
                if known is run:
                    del self._runs[session]

    def send(self, handle: Handle, request: TurnRequest, observer: TurnObserver) -> StartedTurn:
        session = self._session(handle)
        content = user_content(request)
        run = self._start(session, request.cwd, request.model.model_id, observer, False)
        run.start(content, session)
        return StartedTurn(run.subtask_id)

    def create(
        self, cwd: Path, request: TurnRequest, observer: TurnObserver
    ) -> tuple[dict[str, str], StartedTurn]:
        session = str(uuid.uuid4())
        content = user_content(request)
        run = self._start(session, cwd, request.model.model_id, observer, False, new=True)
        run.start(content, session)
        return {"sessionId": session}, StartedTurn(run.subtask_id)

    def session_file(self, handle: Handle) -> Path | None:
        session = handle.get("sessionId")
        projects = self.home.root / "projects"
        if not session or not projects.is_dir():
            return None
        return next(iter(sorted(projects.glob(f"*/{session}.jsonl"))), None)

    def fork(
        self, handle: Handle, last_turn_id: str, cwd: Path | None, title: str | None = None
    ) -> ForkedSession:
        """A new session through ``last_turn_id``, written by the CLI (the source's file is
        only read, so a turn the source runs goes on untouched)."""
        source = self._session(handle)
        path = self.session_file(handle)
        if path is None:
            raise NotFoundError(kind="session", key=source)
        point = fork_point(path, last_turn_id)
        where = cwd or (Path(point.cwd) if point.cwd else None)
        if where is None or not where.is_dir():
            raise UsageError(
                "the task's directory is gone; Claude forks a session only in its directory"
            )
        new_session = str(uuid.uuid4())
        args = fork_args(source, point, new_session, title or "Copy")
        process = self.launcher.launch("claude", args, cwd=where)
        if process is None:
            raise ClaudeUnavailable()
        try:
            check_fork(process, lambda: self.session_file({"sessionId": new_session}))
        finally:
            end_group(process)
        handle_out = {"sessionId": new_session}
        return ForkedSession(handle_out, self.session_file(handle_out))

    def compact(self, handle: Handle, observer: TurnObserver, cwd: Path | None) -> StartedTurn:
        session = self._session(handle)
        run = self._start(session, cwd, None, observer, True)
        run.start("/compact", session)  # Claude's own command, handled by the CLI itself
        return StartedTurn(run.subtask_id)

    def cancel(self, handle: Handle) -> bool:
        with self._lock:
            run = self._runs.get(handle.get("sessionId") or "")
        if run is None or run.finished.is_set():
            return False
        run.interrupt()
        return True

    def models(self) -> list[ModelOption]:
        process = self.launcher.launch(
            "claude",
            ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"],
            # The user's home (not a project): listing models starts no session anywhere.
            cwd=self.home.root.parent if self.home.root.parent.is_dir() else None,
        )
        if process is None:
            raise ClaudeUnavailable()
        try:
            return _initialize_models(process)
        finally:
            with contextlib.suppress(OSError):
                if process.stdin is not None:
                    process.stdin.close()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                end_group(process)
            for stream in (process.stdout, process.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()

    def close(self) -> None:
        with self._lock:
            runs = list(self._runs.values())
        for run in runs:
            end_group(run.process)


def _initialize_models(process: subprocess.Popen[bytes]) -> list[ModelOption]:
    assert process.stdin is not None and process.stdout is not None
    request = {
        "type": "control_request",
        "request_id": "hangar-models",
        "request": {"subtype": "initialize", "hooks": None},
    }
    process.stdin.write((json.dumps(request) + "\n").encode())
    process.stdin.flush()
    found: list[dict[str, Any]] = []
    done = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            with contextlib.suppress(ValueError):
                message = json.loads(line)
                response = message.get("response") if isinstance(message, dict) else None
                if isinstance(response, dict) and response.get("request_id") == "hangar-models":
                    models = (response.get("response") or {}).get("models") or []
                    found.extend(m for m in models if isinstance(m, dict))
                    break
        done.set()

    threading.Thread(target=read, daemon=True).start()
    started = time.monotonic()
    if not done.wait(MODELS_TIMEOUT):
        end_group(process)
        raise ClaudeUnavailable(f"claude listed no models within {time.monotonic() - started:.0f}s")
    return [
        ModelOption(
            id=str(m.get("value")),
            display_name=str(m.get("displayName") or m.get("value")),
            model_type="claude",
            is_default=m.get("value") == "default",
        )
        for m in found
        if m.get("value")
    ]
