"""Sidecar processes of a provider (e.g. ``codex app-server``), each in its own process group.

Contract: :meth:`Sidecar.stop` sends SIGTERM to the sidecar's whole process group, waits up to
``grace`` seconds, then SIGKILLs the group, so grandchildren die with it and ports are freed.
Only the group this object created is ever signalled.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, ClassVar

from hangar.errors import HangarError


@dataclass(eq=False)
class SidecarError(HangarError):
    """A sidecar did not start or did not become ready."""

    command: str = ""
    problem: str = ""
    code: ClassVar[str] = "sidecar_failed"

    def render(self) -> str:
        return f"{self.command}: {self.problem}"


def free_loopback_port() -> int:
    """A port that was free on 127.0.0.1 a moment ago (the caller retries on a race)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Sidecar:
    """A started sidecar process; stderr is kept in an anonymous temp file for diagnostics."""

    def __init__(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> None:
        self.argv = list(argv)
        self._log: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (closed in stop)
        try:
            self.process = subprocess.Popen(
                self.argv,
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=self._log,
                stderr=self._log,
                start_new_session=True,
            )
        except OSError as exc:
            self._log.close()
            raise SidecarError(command=self.argv[0], problem=exc.strerror or str(exc)) from None

    @property
    def pid(self) -> int:
        return self.process.pid

    def log_tail(self, limit: int = 2000) -> str:
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")[-limit:]

    def wait_for_port(self, port: int, timeout: float = 15.0) -> None:
        """Return once something accepts TCP connections on 127.0.0.1:``port``."""
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise SidecarError(
                    command=" ".join(self.argv[:2]),
                    problem=f"exited with {self.process.returncode}: {self.log_tail()}",
                )
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                sock.settimeout(0.5)
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    return
            if time.monotonic() > deadline:
                raise SidecarError(
                    command=" ".join(self.argv[:2]), problem=f"not listening after {timeout}s"
                )
            time.sleep(0.05)  # polling a port with a deadline

    def stop(self, grace: float = 2.0) -> None:
        """End the sidecar's process group: SIGTERM, then SIGKILL after ``grace`` seconds."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(grace)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)  # grandchildren that outlived the leader
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(grace)
        self._log.close()
