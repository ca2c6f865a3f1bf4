"""The executor's one ``opencode serve`` and its event stream.

:class:`OpenCodeServer` starts ``opencode serve --port 0 --hostname 127.0.0.1`` on first use
through the device's launcher, learns its port from the line it prints (``opencode server
listening on http://127.0.0.1:PORT``), and reaches it through :meth:`AgentLauncher.connect`
(the network the server sees — the sandbox's, in tests). :meth:`request` sends one JSON request;
:meth:`listen` receives every bus event of every directory (``GET /global/event``, one reader
thread, ``{directory, payload: {type, properties}}``). :meth:`close` ends the process group it
started.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from hangar.agents.launch import AgentLauncher
from hangar.errors import HangarError

START_TIMEOUT = 60.0
REQUEST_TIMEOUT = 60.0
_LISTENING = re.compile(rb"listening on http://127\.0\.0\.1:(\d+)")
EventListener = Callable[[dict[str, Any]], None]


class OpenCodeUnavailable(HangarError):
    code = "agent_unavailable"
    http_status = 503

    def render(self) -> str:
        return self.message or "opencode is not installed on this device"


class OpenCodeHttpError(HangarError):
    code = "agent_error"
    http_status = 502


def with_directory(path: str, directory: str | None) -> str:
    return f"{path}?directory={quote(directory)}" if directory else path


class OpenCodeServer:
    def __init__(self, launcher: AgentLauncher) -> None:
        self.launcher = launcher
        self.port: int | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._listeners: list[EventListener] = []
        self._lock = threading.RLock()

    def listen(self, listener: EventListener) -> None:
        self._listeners.append(listener)

    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def ensure(self) -> int:
        """The port of the running server, started now when there is none."""
        with self._lock:
            if self.running() and self.port is not None:
                return self.port
            self._stop()
            process = self.launcher.launch(
                "opencode", ["serve", "--port", "0", "--hostname", "127.0.0.1"]
            )
            if process is None:
                raise OpenCodeUnavailable()
            self._process = process
            try:
                self.port = self._wait_port(process)
                self._start_events(self.port)
            except BaseException:
                self._stop()
                raise
            return self.port

    def _wait_port(self, process: subprocess.Popen[bytes]) -> int:
        assert process.stdout is not None
        deadline = time.monotonic() + START_TIMEOUT
        seen: list[bytes] = []
        result: list[int] = []

        def read() -> None:
            assert process.stdout is not None
            for line in process.stdout:
                seen.append(line)
                match = _LISTENING.search(line)
                if match:
                    result.append(int(match.group(1)))
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(max(0.0, deadline - time.monotonic()))
        if not result:
            tail = b"".join(seen[-5:]).decode(errors="replace").strip()
            raise OpenCodeUnavailable(f"opencode serve did not start: {tail or 'no output'}")
        for stream in (process.stdout, process.stderr):
            threading.Thread(target=self._drain, args=(stream,), daemon=True).start()
        return result[0]

    @staticmethod
    def _drain(stream: Any) -> None:
        """Keep reading the server's output so a chatty server never blocks on a full pipe."""
        with contextlib.suppress(OSError, ValueError):
            while stream is not None and stream.read1(4096):
                pass

    def _start_events(self, port: int) -> None:
        connection = self._connection(port, timeout=None)
        connection.request("GET", "/global/event", headers={"Accept": "text/event-stream"})
        response = connection.getresponse()
        if response.status != 200:
            raise OpenCodeUnavailable(f"opencode serve: GET /global/event → {response.status}")
        threading.Thread(
            target=self._read_events,
            args=(connection, response),
            name="hangar-opencode-events",
            daemon=True,
        ).start()

    def _read_events(self, connection: http.client.HTTPConnection, response: Any) -> None:
        try:
            while True:
                line = response.fp.readline()
                if not line:
                    break
                if not line.startswith(b"data:"):
                    continue
                try:
                    event = json.loads(line[5:])
                except ValueError:
                    continue
                if isinstance(event, dict):
                    for listener in list(self._listeners):
                        with contextlib.suppress(Exception):
                            listener(event)
        except (OSError, ValueError):
            pass
        finally:
            connection.close()

    def _connection(
        self, port: int, timeout: float | None = REQUEST_TIMEOUT
    ) -> http.client.HTTPConnection:
        connection = http.client.HTTPConnection("127.0.0.1", port)
        sock = self.launcher.connect(port, timeout=10.0)
        sock.settimeout(timeout)
        connection.sock = sock
        return connection

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """One JSON request; the decoded answer (``None`` for 204). HTTP errors raise."""
        port = self.ensure()
        connection = self._connection(port)
        try:
            data = json.dumps(body).encode() if body is not None else None
            headers = {"Content-Type": "application/json"} if data is not None else {}
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            raw = response.read()
        except OSError as exc:
            raise OpenCodeUnavailable(f"opencode serve: {method} {path}: {exc}") from None
        finally:
            connection.close()
        if response.status >= 400:
            text = raw.decode(errors="replace")[:300]
            raise OpenCodeHttpError(f"opencode serve: {method} {path} → {response.status}: {text}")
        return json.loads(raw) if raw.strip() else None

    def close(self) -> None:
        with self._lock:
            self._stop()

    def _stop(self) -> None:
        process, self._process = self._process, None
        self.port = None
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
