"""Starting agent processes: the one seam between hangar and an agent CLI's executable.

Control facets (``codex app-server``, ``opencode serve``, ``claude`` in stream-json mode …)
start the agent through an :class:`AgentLauncher`. :class:`PathLauncher` finds the executable
on ``PATH`` of the device's environment and starts it with that environment (plus the
``env`` overrides a control asks for, e.g. a proxy); the test kit's sandbox implements the same
interface to start the real CLI inside its loopback-only namespace. Every process is started in
a new session, so ending it (by its PID) never signals hangar itself. :meth:`AgentLauncher.connect`
opens a TCP connection to a loopback port the agent serves (``opencode serve``), in the same
network the launched process sees.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

Process = subprocess.Popen[bytes]


class AgentLauncher(Protocol):
    def which(self, executable: str) -> str | None:
        """Where ``executable`` is, or ``None`` when the agent CLI is not installed."""
        ...

    def launch(
        self,
        executable: str,
        args: Sequence[str],
        *,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Process | None:
        """Start ``executable args…`` with stdin, stdout and stderr piped, with ``env`` added
        to the device's environment; ``None`` when the CLI is not installed. Raises
        :class:`OSError` when it exists but cannot start."""
        ...

    def connect(self, port: int, timeout: float = 10.0) -> socket.socket:
        """A TCP connection to ``127.0.0.1:port`` as the launched agents see it."""
        ...


class PathLauncher:
    """Runs agent CLIs found on ``PATH``, with this device's environment."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self.environ = dict(os.environ if environ is None else environ)

    def which(self, executable: str) -> str | None:
        return shutil.which(executable, path=self.environ.get("PATH"))

    def launch(
        self,
        executable: str,
        args: Sequence[str],
        *,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Process | None:
        found = self.which(executable)
        if found is None:
            return None
        return subprocess.Popen(
            [found, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**self.environ, **(env or {})},
            start_new_session=True,
        )

    def connect(self, port: int, timeout: float = 10.0) -> socket.socket:
        return socket.create_connection(("127.0.0.1", port), timeout)


class NoLauncher:
    """A device where no agent CLI may be started (every control answers ``unavailable``)."""

    def which(self, executable: str) -> str | None:
        return None

    def launch(
        self,
        executable: str,
        args: Sequence[str],
        *,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Process | None:
        return None

    def connect(self, port: int, timeout: float = 10.0) -> socket.socket:
        raise ConnectionRefusedError(f"no agent runs on this device (port {port})")
