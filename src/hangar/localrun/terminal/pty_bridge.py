"""The terminal engine on real file descriptors: the PTY runner's pump when menu commands exist.

:class:`PtyPorts` implements :class:`~hangar.localrun.terminal.interposer.TerminalPorts` over
the user's terminal and the PTY master; :func:`pump_with_engine` is the select loop that feeds
the :class:`~hangar.localrun.terminal.interposer.Interposer` and wakes it at its deadlines. A
SIGWINCH only records the new size and writes a byte to a wake-up pipe: the engine changes
state on the loop's thread, never inside a signal handler. When the provider ends, its last
output goes through the engine (so held output is written after the area is gone) before
:meth:`~hangar.localrun.terminal.interposer.Interposer.provider_exited`.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
from dataclasses import dataclass, field

from hangar.localrun.pty_runner import _read_some, _write_all, set_window_size
from hangar.localrun.terminal.clock import Clock
from hangar.localrun.terminal.inbox import EngineInbox
from hangar.localrun.terminal.interposer import Interposer

POLL_SECONDS = 0.1
DRAIN_LIMIT = 4 << 20


@dataclass
class PtyPorts:
    stdout_fd: int
    master: int
    pgid: int
    output_open: bool = True

    def to_terminal(self, data: bytes) -> None:
        if not self.output_open:
            return
        try:
            _write_all(self.stdout_fd, data)
        except BrokenPipeError:
            self.output_open = False

    def to_provider(self, data: bytes) -> None:
        with contextlib.suppress(OSError):  # the provider is gone: nothing to tell it
            _write_all(self.master, data)

    def resize_provider(self, rows: int, columns: int) -> None:
        with contextlib.suppress(OSError):
            set_window_size(self.master, (rows, columns))

    def end_provider(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, signal.SIGHUP)


@dataclass
class ResizeWakeup:
    """Sizes recorded by the SIGWINCH handler, and the pipe that wakes the loop."""

    sizes: list[tuple[int, int]] = field(default_factory=list)
    read_fd: int = -1
    write_fd: int = -1

    def __post_init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)
        os.set_blocking(self.write_fd, False)

    def record(self, size: tuple[int, int]) -> None:
        self.sizes.append(size)
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self.write_fd, b"w")

    def take(self) -> list[tuple[int, int]]:
        with contextlib.suppress(BlockingIOError, OSError):
            os.read(self.read_fd, 4096)
        taken, self.sizes = self.sizes, []
        return taken

    def close(self) -> None:
        for fd in (self.read_fd, self.write_fd):
            with contextlib.suppress(OSError):
                os.close(fd)


def pump_with_engine(
    process: subprocess.Popen[bytes],
    master: int,
    stdin_fd: int,
    engine: Interposer,
    wakeup: ResizeWakeup,
    clock: Clock,
    inbox: EngineInbox | None = None,
    startup: bytes = b"",
) -> None:
    readers = [master, stdin_fd, wakeup.read_fd]
    if inbox is not None:
        readers.append(inbox.read_fd)
        inbox.attach()
    try:
        while True:
            deadline = engine.next_deadline()
            timeout = POLL_SECONDS
            if deadline is not None:
                timeout = min(timeout, max(deadline - clock.now(), 0.0))
            watched = [fd for fd in readers if fd != master or engine.accepting_output]
            try:
                ready, _, _ = select.select(watched, [], [], timeout)
            except InterruptedError:
                continue
            if wakeup.read_fd in ready:
                for size in wakeup.take():
                    engine.resized(*size)
            if inbox is not None and inbox.read_fd in ready:
                inbox.run_pending(engine)
            if master in ready:
                data = _read_some(master)
                if data and startup:
                    _write_all(master, startup)  # the provider's own input, not the user's
                    startup = b""
                if data:
                    engine.provider_output(data)
                else:
                    readers.remove(master)
            if stdin_fd in ready:
                keys = os.read(stdin_fd, 4096)
                if keys:
                    engine.user_input(keys)
                else:
                    readers.remove(stdin_fd)
            engine.tick()
            if process.poll() is not None:
                break
            if master not in readers:
                process.wait()
                break
        _drain_into(master, engine)
        engine.provider_exited()
    finally:
        if inbox is not None:
            inbox.detach()
        engine.close()


def _drain_into(master: int, engine: Interposer) -> None:
    copied = 0
    while copied < DRAIN_LIMIT:
        ready, _, _ = select.select([master], [], [], 0.05)
        if not ready:
            return
        data = _read_some(master)
        if not data:
            return
        engine.provider_output(data)
        copied += len(data)
