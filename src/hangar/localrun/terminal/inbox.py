"""Calls into the terminal engine from other threads (a provider's hook server, its proxy).

The engine (:class:`~hangar.localrun.terminal.interposer.Interposer`) changes state on the
pump loop's thread only. :class:`EngineInbox` is how another thread asks for something there
— typically "open this card", when a provider's own implement-plan action arrives on its hook
server or proxy thread: :meth:`submit` queues a callable and wakes the loop through a pipe;
the loop runs it with the engine (:meth:`run_pending`). :attr:`attached` says whether a loop
is serving the inbox at all (without a terminal there is no engine, and the caller asks its
questions line by line instead).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hangar.localrun.terminal.interposer import Interposer

EngineCall = Callable[["Interposer"], None]


class EngineInbox:
    def __init__(self) -> None:
        self._calls: deque[EngineCall] = deque()
        self._lock = threading.Lock()
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)
        os.set_blocking(self.write_fd, False)
        self._attached = threading.Event()

    @property
    def attached(self) -> bool:
        """True while a pump loop serves this inbox (the engine is on the terminal)."""
        return self._attached.is_set()

    def attach(self) -> None:
        self._attached.set()

    def detach(self) -> None:
        self._attached.clear()

    def submit(self, call: EngineCall) -> None:
        """Run ``call(engine)`` on the loop's thread, soon."""
        with self._lock:
            self._calls.append(call)
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self.write_fd, b"c")

    def run_pending(self, engine: Interposer) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            os.read(self.read_fd, 4096)
        while True:
            with self._lock:
                if not self._calls:
                    return
                call = self._calls.popleft()
            call(engine)

    def close(self) -> None:
        self.detach()
        for fd in (self.read_fd, self.write_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
