"""A loopback hook server for agent CLIs that report their sessions through hooks.

hangar puts a hook into the CLI's configuration that runs ``python -m hangar __session-hook
--port N --token T`` (:mod:`hangar.cli.session_hook`); that command forwards the hook's stdin
JSON to this server on ``127.0.0.1:N``. Only posts carrying the run's secret token are
accepted (another process cannot report a session into this run); each payload goes to
``on_report`` in order. The server prints nothing into the user's terminal.
"""

from __future__ import annotations

import json
import secrets
import shlex
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOOK_PATH = "/hook/session"
TOKEN_HEADER = "X-Hangar-Hook-Token"
MAX_PAYLOAD = 1 << 20


class SessionHookServer:
    """Accept hook payloads (JSON objects) for one run; a context manager."""

    def __init__(self, on_report: Callable[[dict[str, Any]], None]) -> None:
        self.token = secrets.token_urlsafe(24)
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                if self.path != HOOK_PATH or self.headers.get(TOKEN_HEADER) != outer.token:
                    self.send_error(403)
                    return
                length = min(int(self.headers.get("Content-Length") or 0), MAX_PAYLOAD)
                try:
                    payload = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    self.send_error(400)
                    return
                if isinstance(payload, dict):
                    with outer._lock:  # reports are handled one at a time, in arrival order
                        on_report(payload)
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return  # never write into the user's terminal

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def command(self, *extra: str) -> list[str]:
        """The hook command line (argv) that forwards a payload to this server."""
        return [
            sys.executable, "-m", "hangar", "__session-hook",
            "--port", str(self.port), "--token", self.token, *extra,
        ]  # fmt: skip

    def shell_command(self, *extra: str) -> str:
        return shlex.join(self.command(*extra))

    def __enter__(self) -> SessionHookServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
