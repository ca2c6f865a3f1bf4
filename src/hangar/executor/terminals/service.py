"""This device's terminals: one PTY shell per workspace tool context (RW-253..256).

:class:`TerminalService` opens a shell in the directory a :class:`ToolContext` names and
keeps it until it is closed, its shell ends and another terminal needs the slot, or the
executor stops. A terminal is tied to the context it was opened for: reattaching with its id
from another context is refused, so a terminal opened for task A never serves task B
(RW-255), while reattaching from A's own context gets A's terminal back, with the output
kept meanwhile (RW-256). Output goes out as events through the executor's sink
(:mod:`hangar.protocol.terminal`); the newest bytes stay in a ring for replays. Output is
held (the PTY is not read) while a page socket asks for it (``runtime.terminal.flow``) or
while the sink is congested (a remote device's connection to the hub is behind).
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

from hangar.errors import HangarError
from hangar.executor.terminals.pty_shell import (
    InputTimeout,
    PtyShell,
    default_shell,
    shell_environment,
)
from hangar.executor.terminals.ring import OutputRing
from hangar.executor.tool_context import ToolContext
from hangar.protocol import terminal as term
from hangar.protocol.codec import to_json

log = logging.getLogger("hangar.executor.terminals")

MAX_TERMINALS = 16
EventSink = Callable[[str, dict[str, Any]], Any]


@dataclass(eq=False)
class TerminalError(HangarError):
    terminal_id: str = ""
    code: ClassVar[str] = "terminal_error"
    http_status: ClassVar[int] = 409

    def details(self) -> dict[str, Any]:
        return {"terminalId": self.terminal_id} if self.terminal_id else {}


@dataclass(eq=False)
class TerminalNotFoundError(TerminalError):
    code: ClassVar[str] = "terminal_not_found"
    http_status: ClassVar[int] = 404

    def render(self) -> str:
        return self.message or f"no open terminal {self.terminal_id}"


@dataclass(eq=False)
class TerminalContextMismatchError(TerminalError):
    """A terminal id presented from another task or directory than it was opened for."""

    code: ClassVar[str] = "terminal_context_mismatch"


@dataclass(eq=False)
class TerminalLimitError(TerminalError):
    code: ClassVar[str] = "terminal_limit"


@dataclass(eq=False)
class TerminalInputError(TerminalError):
    """The input could not be handed over (the shell ended, or reads nothing)."""

    code: ClassVar[str] = "terminal_input_refused"


@dataclass(eq=False)
class TerminalStartError(TerminalError):
    code: ClassVar[str] = "terminal_start_failed"
    http_status: ClassVar[int] = 500


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(eq=False)
class TerminalSession:
    terminal_id: str
    context: ToolContext
    workspace_path: str
    shell: str
    cols: int
    rows: int
    created_at: str = field(default_factory=_now)
    ring: OutputRing = field(default_factory=OutputRing)
    exit_code: int | None = None
    pty: PtyShell | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    holds: dict[str, float] = field(default_factory=dict)
    """Page sockets that cannot take more output now, with when their hold expires."""
    windows: dict[str, tuple[int, float]] = field(default_factory=dict)
    """Page sockets' windows: the offset output may reach, and when the window expires."""

    def held(self) -> bool:
        now = time.monotonic()
        with self.lock:
            for holder in [h for h, until in self.holds.items() if until <= now]:
                del self.holds[holder]
            for holder in [h for h, (_, until) in self.windows.items() if until <= now]:
                del self.windows[holder]
            end = self.ring.end
            return bool(self.holds) or any(limit <= end for limit, _ in self.windows.values())

    def same_context(self, context: ToolContext) -> bool:
        return (self.context.directory, self.context.local_task_id) == (
            context.directory,
            context.local_task_id,
        )

    def info(self, *, reattached: bool = False) -> term.TerminalInfo:
        with self.lock:
            offset, exit_code = self.ring.end, self.exit_code
        return term.TerminalInfo(
            terminal_id=self.terminal_id,
            workspace_path=self.workspace_path,
            local_task_id=self.context.local_task_id,
            project_path=self.context.project_path,
            cwd=str(self.context.directory),
            shell=self.shell,
            cols=self.cols,
            rows=self.rows,
            running=exit_code is None,
            exit_code=exit_code,
            offset=offset,
            created_at=self.created_at,
            reattached=reattached,
        )


class TerminalService:
    def __init__(
        self,
        sink: EventSink,
        environ: Mapping[str, str] | None = None,
        limit: int = MAX_TERMINALS,
        congested: Callable[[], bool] = lambda: False,
    ) -> None:
        """``congested()`` is true while the events already handed to ``sink`` have not
        gone on (a remote device's connection is behind): no terminal reads its PTY then."""
        self.sink = sink
        self.congested = congested
        self.environ = environ if environ is not None else os.environ
        self.limit = limit
        self._sessions: dict[str, TerminalSession] = {}
        self._lock = threading.Lock()

    # -- lifecycle ----------------------------------------------------------------------------
    def open(self, context: ToolContext, request: term.OpenTerminal) -> term.TerminalInfo:
        """A terminal for ``context``: the one named by ``terminalId`` when it is still open
        for this same context, else a new shell in the context's directory."""
        if request.terminal_id is not None:
            found = self._sessions.get(request.terminal_id)
            if found is not None:
                if not found.same_context(context):
                    raise TerminalContextMismatchError(
                        "that terminal belongs to another task or directory",
                        terminal_id=request.terminal_id,
                    )
                if found.exit_code is None:
                    self.resize(term.TerminalResize(
                        terminal_id=found.terminal_id, cols=request.cols, rows=request.rows
                    ))  # fmt: skip
                    return found.info(reattached=True)
                with self._lock:  # its shell ended: this context gets a fresh one
                    self._sessions.pop(found.terminal_id, None)
        self._make_room()
        session = TerminalSession(
            terminal_id=secrets.token_urlsafe(12),
            context=context,
            workspace_path=request.workspace_path,
            shell=default_shell(self.environ),
            cols=request.cols,
            rows=request.rows,
        )
        try:
            session.pty = PtyShell(
                [session.shell],
                context.directory,
                shell_environment(self.environ, context.directory),
                (request.cols, request.rows),
                on_output=lambda data: self._output(session, data),
                on_exit=lambda code: self._exited(session, code),
                held=lambda: session.held() or self.congested(),
            )
        except OSError as exc:
            raise TerminalStartError(f"cannot start {session.shell}: {exc.strerror}") from None
        with self._lock:
            self._sessions[session.terminal_id] = session
        log.info(
            "terminal %s opened: pid=%d cwd=%s task=%s",
            session.terminal_id,
            session.pty.pid,
            context.directory,
            context.local_task_id,
        )
        return session.info()

    def _make_room(self) -> None:
        with self._lock:
            if len(self._sessions) < self.limit:
                return
            ended = [s for s in self._sessions.values() if s.exit_code is not None]
            if not ended:
                raise TerminalLimitError(
                    f"{self.limit} terminals are open on this device: close one first"
                )
            oldest = min(ended, key=lambda s: s.created_at)
            del self._sessions[oldest.terminal_id]

    def _session(self, terminal_id: str) -> TerminalSession:
        found = self._sessions.get(terminal_id)
        if found is None:
            raise TerminalNotFoundError(terminal_id=terminal_id)
        return found

    def close(self, request: term.TerminalRef) -> term.TerminalClosed:
        with self._lock:
            session = self._sessions.pop(request.terminal_id, None)
        if session is None:
            return term.TerminalClosed(terminal_id=request.terminal_id, closed=False)
        if session.pty is not None:
            session.pty.close()
        return term.TerminalClosed(terminal_id=request.terminal_id, closed=True)

    def close_all(self) -> None:
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for session in sessions:
            if session.pty is not None:
                session.pty.close()

    def list(self) -> term.TerminalList:
        with self._lock:
            sessions = list(self._sessions.values())
        return term.TerminalList(terminals=[s.info() for s in sessions])

    # -- input and output ---------------------------------------------------------------------
    def input(self, request: term.TerminalInput) -> term.Accepted:
        session = self._session(request.terminal_id)
        if session.exit_code is not None or session.pty is None:
            raise TerminalInputError("the shell has ended", terminal_id=request.terminal_id)
        try:
            session.pty.write(request.data.encode("utf-8", "surrogateescape"))
        except InputTimeout as exc:
            raise TerminalInputError(str(exc), terminal_id=request.terminal_id) from None
        return term.Accepted(terminal_id=request.terminal_id)

    def resize(self, request: term.TerminalResize) -> term.Accepted:
        session = self._session(request.terminal_id)
        session.cols, session.rows = request.cols, request.rows
        if session.pty is not None:
            session.pty.resize(request.cols, request.rows)
        return term.Accepted(terminal_id=request.terminal_id)

    def flow(self, request: term.TerminalFlow) -> term.Accepted:
        """Hold or release the terminal's output for one page socket, and move its window
        (backpressure; :class:`~hangar.protocol.terminal.TerminalFlow`)."""
        session = self._session(request.terminal_id)
        until = time.monotonic() + term.FLOW_HOLD_SECONDS
        with session.lock:
            if request.paused:
                session.holds[request.holder] = until
            else:
                session.holds.pop(request.holder, None)
            if request.consumed is not None:
                session.windows[request.holder] = (request.consumed + term.FLOW_WINDOW, until)
            elif not request.paused:
                session.windows.pop(request.holder, None)
        return term.Accepted(terminal_id=request.terminal_id)

    def replay(self, request: term.TerminalReplay) -> term.TerminalOutput:
        session = self._session(request.terminal_id)
        with session.lock:
            first, data, truncated = session.ring.since(request.offset)
        return term.TerminalOutput(
            terminal_id=session.terminal_id, offset=first, data=data, truncated=truncated
        )

    def _output(self, session: TerminalSession, data: bytes) -> None:
        # The lock orders ring and events alike: an event's offset is never behind the ring.
        with session.lock:
            offset = session.ring.append(data)
            event = term.TerminalOutput(terminal_id=session.terminal_id, offset=offset, data=data)
            self._emit(term.TERMINAL_OUTPUT, event)

    def _exited(self, session: TerminalSession, code: int) -> None:
        with session.lock:
            session.exit_code = code
            event = term.TerminalExit(
                terminal_id=session.terminal_id, exit_code=code, offset=session.ring.end
            )
            self._emit(term.TERMINAL_EXIT, event)
        log.info("terminal %s ended with %d", session.terminal_id, code)

    def _emit(self, name: str, event: Any) -> None:
        try:
            self.sink(name, to_json(event))
        except Exception:  # a listener's failure must not stop the PTY reader
            log.exception("terminal event %s not delivered", name)
