"""A heartbeat: call a function every ``interval`` seconds on a thread until stopped.

Failures are ignored (the hub tolerates missed beats: a discussion's hold lasts 90 s, a run's
silence 150 s), so a hub that is away for a while never disturbs the CLI.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from hangar.errors import HangarError


class Beat:
    def __init__(self, call: Callable[[], object], interval: float, name: str) -> None:
        self._stop = threading.Event()

        def loop() -> None:
            while not self._stop.wait(interval):
                try:
                    call()
                except HangarError:
                    continue

        self._thread = threading.Thread(target=loop, name=f"hangar-{name}-beat", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(5)
