"""A test terminal: runs a command on a fresh PTY and lets a test type and read like a user."""

from __future__ import annotations

import contextlib
import os
import re
import select
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from hangar.localrun.pty_runner import set_window_size


class PtyTerminal:
    """``argv`` running with a real terminal on its stdin/stdout/stderr."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        size: tuple[int, int] = (40, 120),
    ) -> None:
        self.master, self.slave = os.openpty()
        set_window_size(self.master, size)
        self.process = subprocess.Popen(
            list(argv),
            stdin=self.slave,
            stdout=self.slave,
            stderr=self.slave,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            start_new_session=True,
            preexec_fn=_controlling_tty,
        )
        self._buffer = bytearray()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.master], [], [], 0.1)
            except (OSError, ValueError):
                return
            if not ready:
                if self.process.poll() is not None and not self._more():
                    return
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self._buffer += data

    def _more(self) -> bool:
        try:
            return bool(select.select([self.master], [], [], 0.05)[0])
        except (OSError, ValueError):
            return False

    @property
    def output(self) -> str:
        with self._lock:
            return self._buffer.decode("utf-8", "replace")

    def expect(self, pattern: str, timeout: float = 20.0, start: int = 0) -> re.Match[str]:
        """Wait until ``pattern`` (a regex) appears in the output after offset ``start``."""
        deadline = time.monotonic() + timeout
        compiled = re.compile(pattern)
        while True:
            match = compiled.search(self.output, start)
            if match:
                return match
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{pattern!r} not seen in {timeout}s; output tail:\n{self.output[-3000:]}"
                )
            time.sleep(0.05)

    def send(self, data: str | bytes) -> None:
        os.write(self.master, data.encode() if isinstance(data, str) else data)

    def stty(self) -> str:
        """``stty -g`` of this terminal, read from the outside."""
        return subprocess.run(
            ["stty", "-g"], stdin=self.slave, capture_output=True, text=True, check=True
        ).stdout.strip()

    def resize(self, rows: int, cols: int) -> None:
        set_window_size(self.master, (rows, cols))

    def wait(self, timeout: float = 30.0) -> int:
        return self.process.wait(timeout)

    def close(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, 9)
            self.process.wait(10)
        self._reader.join(5)
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)

    def __enter__(self) -> PtyTerminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _controlling_tty() -> None:
    import fcntl
    import termios

    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
