"""The first-effective-progress watchdog of a continued turn (RW-109..RW-113).

Started before the agent is asked to run the turn; :meth:`StartupWatchdog.progress` with
``effective=True`` closes it at once (the first assistant, reasoning or tool item: a long tool
call that has started is never killed by it, RW-112). Echoes of the user's input, errors the
agent will retry and sub-agent events are reported with ``effective=False`` and change nothing
(RW-111). When the time runs out first, ``on_timeout`` is called once, on the watchdog's
thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

DEFAULT_TIMEOUT = 180.0


class StartupWatchdog:
    def __init__(self, timeout: float, on_timeout: Callable[[], None]) -> None:
        self.timeout = timeout
        self._on_timeout = on_timeout
        self._closed = threading.Event()
        self.fired = False
        self._thread = threading.Thread(target=self._wait, name="hangar-turn-watchdog", daemon=True)

    def start(self) -> StartupWatchdog:
        self._thread.start()
        return self

    def progress(self, effective: bool) -> None:
        if effective:
            self._closed.set()

    def close(self) -> None:
        """Stop watching (the turn ended or made progress)."""
        self._closed.set()

    @property
    def open(self) -> bool:
        return not self._closed.is_set()

    def _wait(self) -> None:
        if not self._closed.wait(self.timeout):
            self._closed.set()
            self.fired = True
            self._on_timeout()
