"""A small JSON-RPC client for ``codex app-server`` over stdio.

Contract:

* :meth:`CodexAppServer.start` spawns the server (``argv`` is the full command, so a caller
  can prefix it, e.g. to enter a sandbox), performs the ``initialize`` handshake and sends the
  ``initialized`` notification. Requests made before that would fail with "Not initialized".
* :meth:`CodexAppServer.request` sends one request and waits for the response with the same
  ``id``; notifications that arrive first (``remoteControl/status/changed``, ``configWarning``,
  ``thread/archived``…) are kept in :attr:`CodexAppServer.notifications`, never mistaken for the
  answer. A JSON-RPC error becomes :class:`AppServerError` (``code``, ``message``); no answer
  within the time-out becomes :class:`AppServerTimeout`; a server that exits becomes
  :class:`AppServerGone`. Garbage lines on stdout are counted, never fatal.
* :meth:`CodexAppServer.close` ends the process it started, by its PID only (stdin closed
  first, then SIGTERM, then SIGKILL), and reaps it.

The wire format is JSON-RPC 2.0 without the ``"jsonrpc"`` member, one JSON object per line.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from hangar import __version__
from hangar.errors import HangarError

NO_ROLLOUT = "no rollout found for thread id"
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


class CodexAppServer:
    """One running ``codex app-server`` process and its request/response matching."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.env = dict(env) if env is not None else None
        self.notifications: list[dict[str, Any]] = []
        self.garbage_lines = 0
        self.process: subprocess.Popen[bytes] | None = None
        self._inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
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
            proc.terminate()
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for thread in self._threads:
            thread.join(grace)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def __enter__(self) -> CodexAppServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- messages --------------------------------------------------------------------------
    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"method": method}
        if params is not None:
            message["params"] = params
        self._send(message, method)

    def request(
        self, method: str, params: dict[str, Any] | None = None, timeout: float = 30.0
    ) -> dict[str, Any]:
        """Send a request and return its ``result`` (see the module contract for errors)."""
        request_id = self._next_id
        self._next_id += 1
        self._send({"id": request_id, "method": method, "params": params or {}}, method)
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AppServerTimeout(method=method, seconds=timeout)
            try:
                message = self._inbox.get(timeout=remaining)
            except queue.Empty:
                raise AppServerTimeout(method=method, seconds=timeout) from None
            if message is None:
                self._inbox.put(None)  # keep the end marker for later calls
                raise AppServerGone(
                    method=method, stderr_tail=self._stderr.decode(errors="replace")
                )
            if "method" in message and "id" in message:
                self._refuse(message)
            elif "method" in message:
                self.notifications.append(message)
            elif message.get("id") == request_id:
                return self._result(method, message)
            # A response to an earlier, timed-out request: dropped.

    # -- internals -------------------------------------------------------------------------
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
            raise AppServerGone(
                method=method, stderr_tail=self._stderr.decode(errors="replace")
            ) from None

    def _refuse(self, message: dict[str, Any]) -> None:
        """hangar makes no turns here, so server-initiated requests are declined."""
        error = {"code": -32601, "message": "hangar does not handle this request"}
        with contextlib.suppress(AppServerGone):
            self._send({"id": message["id"], "error": error}, str(message.get("method")))

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

    def _read_stdout(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                self.garbage_lines += 1
                continue
            if isinstance(message, dict):
                self._inbox.put(message)
            else:
                self.garbage_lines += 1
        self._inbox.put(None)

    def _read_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        stderr = self.process.stderr
        while chunk := os.read(stderr.fileno(), 4096):
            self._stderr += chunk
            del self._stderr[:-8192]
