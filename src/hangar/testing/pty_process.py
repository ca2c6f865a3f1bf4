"""A process on a real pseudo-terminal, driven by keystrokes (for TUI tests).

:meth:`hangar.testing.sandbox.Sandbox.spawn_pty` creates one inside the sandbox. The child
gets the PTY as its controlling terminal; the test holds the master side: :meth:`send`
writes keystrokes, :meth:`expect` reads output until a pattern shows up (or a deadline
passes: :class:`TimeoutError` with the tail of the screen), :attr:`output` keeps everything
read so far.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import struct
import subprocess
import termios
import time


def set_window_size(fd: int, rows: int, cols: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


class PtyProcess:
    """The child process and the PTY master file descriptor the test drives."""

    def __init__(self, process: subprocess.Popen[bytes], master_fd: int) -> None:
        self.process = process
        self.master_fd = master_fd
        self.output = bytearray()

    @property
    def pid(self) -> int:
        return self.process.pid

    def send(self, keys: str | bytes) -> None:
        """Write keystrokes (``"\\r"`` is Enter, ``"\\x03"`` Ctrl-C, ``"\\x1b"`` Escape)."""
        data = keys.encode("utf-8") if isinstance(keys, str) else keys
        os.write(self.master_fd, data)

    def read_available(self, timeout: float = 0.0) -> bytes:
        """Read what the child has written, waiting at most ``timeout`` for the first byte."""
        chunks = []
        wait = timeout
        while True:
            ready, _, _ = select.select([self.master_fd], [], [], wait)
            if not ready:
                break
            try:
                chunk = os.read(self.master_fd, 65536)
            except OSError:  # EIO: the child side is closed
                break
            if not chunk:
                break
            chunks.append(chunk)
            wait = 0.0
        data = b"".join(chunks)
        self.output.extend(data)
        return data

    def expect(self, pattern: str | re.Pattern[bytes], timeout: float = 30.0) -> re.Match[bytes]:
        """Read until ``pattern`` (a regex over the raw bytes) matches the output so far."""
        regex = re.compile(pattern.encode() if isinstance(pattern, str) else pattern.pattern)
        deadline = time.monotonic() + timeout
        while True:
            match = regex.search(self.output)
            if match:
                return match
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (not self.read_available(min(remaining, 0.5)) and self.exited):
                tail = bytes(self.output[-2000:]).decode("utf-8", "replace")
                raise TimeoutError(f"{regex.pattern!r} not seen; output tail:\n{tail}")

    @property
    def exited(self) -> bool:
        return self.process.poll() is not None

    def resize(self, rows: int, cols: int) -> None:
        set_window_size(self.master_fd, rows, cols)

    def close(self) -> None:
        """Close the master side (the child sees a hangup); the sandbox ends the process."""
        with contextlib.suppress(OSError):
            os.close(self.master_fd)
