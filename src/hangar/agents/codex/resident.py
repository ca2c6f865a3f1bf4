"""The executor's one resident ``codex app-server`` (RW-081, RW-084..088, RW-113, RW-114).

Every Codex operation of an executor — list, lifecycle (archive, rename, delete), send,
guidance, compact, models, goals — goes to the same process, started on first use through the
device's launcher with the device's environment plus the process-level settings of
:meth:`ResidentAppServer.configure` (e.g. a proxy). Nothing starts a second one with another
environment: a configuration change ends the current process, and the next use starts the new
one with the new settings. :meth:`ResidentAppServer.restart` ends a stuck server (the startup
watchdog, a delete that never answers); the next use starts a fresh one.

Listeners and the request handler registered here follow the server across restarts.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping
from typing import Any

from hangar.agents.codex.app_server import (
    GONE,
    CodexAppServer,
    Listener,
    RequestHandler,
)
from hangar.agents.launch import AgentLauncher

START_TIMEOUT = 60.0


class ResidentAppServer:
    def __init__(self, launcher: AgentLauncher) -> None:
        self.launcher = launcher
        self.environment: dict[str, str] = {}
        self.on_request: RequestHandler | None = None
        self.starts = 0
        """How many processes this host started (a restart starts one more)."""
        self._listeners: list[Listener] = []
        self._server: CodexAppServer | None = None
        self._lock = threading.RLock()

    def listen(self, listener: Listener) -> None:
        self._listeners.append(listener)

    @property
    def pid(self) -> int | None:
        server = self._server
        return server.process.pid if server is not None and server.process is not None else None

    def running(self) -> bool:
        server = self._server
        return server is not None and server.alive

    def get(self) -> CodexAppServer | None:
        """The running server, started now if there is none; ``None`` when Codex is not
        installed. Raises :class:`~hangar.agents.codex.app_server.AppServerGone` when it
        cannot start."""
        with self._lock:
            server = self._server
            if server is not None and server.alive:
                return server
            if server is not None:
                self._server = None
                server.close(grace=1.0)
            process = self.launcher.launch("codex", ["app-server"], env=self.environment or None)
            if process is None:
                return None
            server = CodexAppServer(["codex", "app-server"])
            server.on_request = self._on_request
            server.listen(self._notify)
            try:
                server.attach(process, timeout=START_TIMEOUT)
            except BaseException:
                server.kill()
                raise
            self._server = server
            self.starts += 1
            return server

    def configure(self, environment: Mapping[str, str]) -> bool:
        """Use ``environment`` for the process from now on; returns whether it changed (then
        the running server is ended and the next use starts one with the new settings)."""
        with self._lock:
            wanted = dict(environment)
            if wanted == self.environment:
                return False
            self.environment = wanted
            self._end()
            return True

    def restart(self) -> None:
        """End the current server now (SIGKILL by PID); the next use starts a new one."""
        with self._lock:
            self._end()

    def close(self) -> None:
        with self._lock:
            server, self._server = self._server, None
        if server is not None:
            server.close()

    def _end(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.kill()

    def _notify(self, message: dict[str, Any]) -> None:
        for listener in list(self._listeners):
            with contextlib.suppress(Exception):  # a bad listener must not stop the reader
                listener(message)

    def _on_request(self, message: dict[str, Any]) -> bool:
        handler = self.on_request
        return handler(message) if handler is not None else False


__all__ = ["GONE", "ResidentAppServer"]
