"""A small JSON-RPC client for ``codex app-server`` over stdio.

Contract:

* :meth:`CodexAppServer.start` spawns the server (``argv`` is the full command, so a caller
  can prefix it, e.g. to enter a sandbox), performs the ``initialize`` handshake and sends the
  ``initialized`` notification. Requests made before that would fail with "Not initialized".
* :meth:`CodexAppServer.request` sends one request and waits for the response with the same
  ``id``. Requests may come from several threads at once: one reader thread hands each answer
  to the request that waits for it. Notifications (``remoteControl/status/changed``,
  ``thread/archived``, ``item/agentMessage/delta``…) are kept in the bounded
  :attr:`CodexAppServer.notifications` and given to every listener
  (:meth:`CodexAppServer.listen`), never mistaken for an answer. A JSON-RPC error becomes
  :class:`AppServerError` (``code``, ``message``); no answer within the time-out becomes
  :class:`AppServerTimeout`; a server that exits becomes :class:`AppServerGone`. Garbage lines
  on stdout are counted, never fatal.
* Requests the *server* makes (approvals, user input) go to :attr:`CodexAppServer.on_request`
  on the reader thread; it answers later with :meth:`CodexAppServer.respond` (any thread).
  Without a handler, or when the handler returns ``False``, they are declined at once.
  Listeners and the handler run on the reader thread: they must not call :meth:`request`.
* :meth:`CodexAppServer.close` ends the process it started (stdin closed first, then
  SIGTERM, then SIGKILL) and reaps it; :meth:`CodexAppServer.kill` ends it at once. Signals go
  to the process group the server leads (it was started in a new session): ``codex`` is a node
  wrapper around the native binary, and signalling the wrapper's PID alone would leave the
  binary running. The group is signalled only while its leader is not yet reaped, so its id
  cannot have been reused.

The wire format is JSON-RPC 2.0 without the ``"jsonrpc"`` member, one JSON object per line.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from hangar import __version__
from hangar.errors import HangarError

NO_ROLLOUT = "no rollout found for thread id"
GONE = "hangar/serverGone"
"""The pseudo-notification every listener gets once when the server's output ends
(``params``: the server's ``pid`` and the tail of its ``stderr``)."""
"""The error text of a stale thread: in Codex's state DB but without a rollout file."""


@dataclass(eq=False)
class AppServerError(HangarError):
    """The app-server answered a request with a JSON-RPC error."""

    method: str = ""
    rpc_code: int = 0
    rpc_message: str = ""
    code: ClassVar[str] = "agent_error"
    http_status: ClassVar[int] = 502

    def render(self) -> str:
        return f"codex app-server {self.method}: {self.rpc_message} ({self.rpc_code})"

    def details(self) -> dict[str, Any]:
        return {"method": self.method, "rpcCode": self.rpc_code, "rpcMessage": self.rpc_message}

    @property
    def is_missing_rollout(self) -> bool:
        return NO_ROLLOUT in self.rpc_message

    @property
    def is_unknown_method(self) -> bool:
        return self.rpc_code == -32601 or "unknown variant" in self.rpc_message


@dataclass(eq=False)
class AppServerTimeout(HangarError):
    method: str = ""
    seconds: float = 0.0
    code: ClassVar[str] = "agent_timeout"
    http_status: ClassVar[int] = 504

    def render(self) -> str:
        return f"codex app-server {self.method}: no answer within {self.seconds:g}s"


@dataclass(eq=False)
class AppServerGone(HangarError):
    method: str = ""
    stderr_tail: str = ""
    code: ClassVar[str] = "agent_unavailable"
    http_status: ClassVar[int] = 503

    def render(self) -> str:
        tail = f": {self.stderr_tail.strip()[-300:]}" if self.stderr_tail.strip() else ""
        return f"codex app-server exited (during {self.method or 'start'}){tail}"


def find_codex(environ: Mapping[str, str] | None = None) -> str | None:
    """The ``codex`` executable on ``PATH`` (of ``environ``), or ``None`` when not installed."""
    env = os.environ if environ is None else environ
    return shutil.which("codex", path=env.get("PATH"))


Listener = Callable[[dict[str, Any]], None]
"""Called with every notification, on the reader thread."""
RequestHandler = Callable[[dict[str, Any]], bool]
"""Called with a server request (``{id, method, params}``) on the reader thread; returns
whether it will answer (later, through :meth:`CodexAppServer.respond`)."""

NOTIFICATIONS_KEPT = 2000
"""The newest notifications kept for inspection; listeners see every one."""


class _Slot:
    """Where the reader thread leaves the answer of one waiting request."""

    __slots__ = ("answer", "ready")

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.answer: dict[str, Any] | None = None


def _signal_group(proc: subprocess.Popen[bytes], signum: int) -> None:
    """Signal the process group ``proc`` leads (or ``proc`` alone when it leads none)."""
    if proc.poll() is not None:
        return  # reaped: its ids may belong to someone else now
    with contextlib.suppress(OSError):
        if os.getpgid(proc.pid) == proc.pid:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)


class CodexAppServer:
    """One running ``codex app-server`` process and its request/response matching."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.env = dict(env) if env is not None else None
        self.notifications: deque[dict[str, Any]] = deque(maxlen=NOTIFICATIONS_KEPT)
        self.garbage_lines = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.on_request: RequestHandler | None = None
        self._listeners: list[Listener] = []
        self._pending: dict[int, _Slot] = {}
        self._pending_lock = threading.Lock()
        self._gone = threading.Event()
        self._next_id = 1
        self._stderr = bytearray()
        self._write_lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    # -- lifecycle -------------------------------------------------------------------------
    def start(self, timeout: float = 30.0) -> dict[str, Any]:
        """Spawn the server and run the ``initialize`` handshake; returns its result."""
        try:
            process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self.env,
                start_new_session=True,
            )
        except OSError as exc:
            raise AppServerGone(method="start", stderr_tail=str(exc)) from None
        return self.attach(process, timeout)

    def attach(self, process: subprocess.Popen[bytes], timeout: float = 30.0) -> dict[str, Any]:
        """Use an already started server (stdin and stdout pipes) and run the handshake.

        :meth:`close` ends it like a process this client started.
        """
        self.process = process
        self._threads = [threading.Thread(target=self._read_stdout, daemon=True)]
        if process.stderr is not None:
            self._threads.append(threading.Thread(target=self._read_stderr, daemon=True))
        for thread in self._threads:
            thread.start()
        client = {"name": "hangar", "title": "hangar", "version": __version__}
        result = self.request("initialize", {"clientInfo": client}, timeout=timeout)
        self.notify("initialized")
        return result

    @property
    def alive(self) -> bool:
        proc = self.process
        return proc is not None and proc.poll() is None and not self._gone.is_set()

    def close(self, grace: float = 5.0) -> None:
        """End the process this client started (by PID) and reap it."""
        proc = self.process
        if proc is None:
            return
        with contextlib.suppress(OSError):
            if proc.stdin is not None:
                proc.stdin.close()
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGTERM)
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.wait()
        for thread in self._threads:
            thread.join(grace)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def kill(self) -> None:
        """End a server that stopped answering at once (SIGKILL by PID), then reap it."""
        proc = self.process
        if proc is not None and proc.poll() is None:
            _signal_group(proc, signal.SIGKILL)
        self.close(grace=5.0)

    def __enter__(self) -> CodexAppServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- messages --------------------------------------------------------------------------
    def listen(self, listener: Listener) -> None:
        """Give every later notification to ``listener`` (on the reader thread)."""
        self._listeners.append(listener)

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"method": method}
        if params is not None:
            message["params"] = params
        self._send(message, method)

    def respond(self, request_id: Any, result: dict[str, Any]) -> None:
        """Answer a request the server made (e.g. an approval)."""
        self._send({"id": request_id, "result": result}, "response")

    def decline(
        self, request_id: Any, message: str = "hangar does not handle this request"
    ) -> None:
        """Refuse a request the server made."""
        error = {"code": -32601, "message": message}
        with contextlib.suppress(AppServerGone):
            self._send({"id": request_id, "error": error}, "response")

    def request(
        self, method: str, params: dict[str, Any] | None = None, timeout: float = 30.0
    ) -> dict[str, Any]:
        """Send a request and return its ``result`` (see the module contract for errors)."""
        slot = _Slot()
        with self._pending_lock:
            request_id = self._next_id
            self._next_id += 1
            self._pending[request_id] = slot
        try:
            if self._gone.is_set():
                raise self._gone_error(method)
            self._send({"id": request_id, "method": method, "params": params or {}}, method)
            if not slot.ready.wait(timeout):
                raise AppServerTimeout(method=method, seconds=timeout)
        finally:
            with self._pending_lock:
                self._pending.pop(request_id, None)
        if slot.answer is None:
            raise self._gone_error(method)
        return self._result(method, slot.answer)

    @property
    def stderr_tail(self) -> str:
        return self._stderr.decode(errors="replace")[-2000:]

    # -- internals -------------------------------------------------------------------------
    def _gone_error(self, method: str) -> AppServerGone:
        return AppServerGone(method=method, stderr_tail=self._stderr.decode(errors="replace"))

    def _send(self, message: dict[str, Any], method: str) -> None:
        proc = self.process
        if proc is None or proc.stdin is None:
            raise AppServerGone(method=method)
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode()
        try:
            with self._write_lock:
                proc.stdin.write(data)
                proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            raise self._gone_error(method) from None

    @staticmethod
    def _result(method: str, message: dict[str, Any]) -> dict[str, Any]:
        error = message.get("error")
        if isinstance(error, dict):
            raise AppServerError(
                method=method,
                rpc_code=int(error.get("code") or 0),
                rpc_message=str(error.get("message") or ""),
            )
        result = message.get("result")
        return result if isinstance(result, dict) else {}

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:
            handler = self.on_request
            taken = False
            if handler is not None:
                try:
                    taken = handler(message)
                except Exception:  # a broken handler must not stop the reader
                    taken = False
            if not taken:
                self.decline(message["id"])
        elif "method" in message:
            self.notifications.append(message)
            for listener in list(self._listeners):
                with contextlib.suppress(Exception):  # one bad listener must not stop others
                    listener(message)
        else:
            with self._pending_lock:
                slot = self._pending.get(message.get("id"))  # type: ignore[arg-type]
            if slot is not None:  # else: the answer to a request that timed out: dropped
                slot.answer = message
                slot.ready.set()

    def _read_stdout(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        try:
            for line in self.process.stdout:
                try:
                    message = json.loads(line)
                except ValueError:
                    self.garbage_lines += 1
                    continue
                if isinstance(message, dict):
                    self._dispatch(message)
                else:
                    self.garbage_lines += 1
        except (OSError, ValueError):
            pass  # the pipe was closed under us
        finally:
            self._gone.set()
            with self._pending_lock:
                waiting = list(self._pending.values())
            for slot in waiting:
                slot.ready.set()  # no answer: each waiting request raises AppServerGone
            gone = {"method": GONE, "params": {"pid": self.process.pid, "stderr": self.stderr_tail}}
            for listener in list(self._listeners):
                with contextlib.suppress(Exception):
                    listener(gone)

    def _read_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        stderr = self.process.stderr
        with contextlib.suppress(OSError, ValueError):
            while chunk := os.read(stderr.fileno(), 4096):
                self._stderr += chunk
                del self._stderr[:-8192]
