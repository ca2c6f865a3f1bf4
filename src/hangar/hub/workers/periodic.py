"""A hub background worker: one daemon thread that runs a step every few seconds."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from typing import Self


class PeriodicWorker(ABC):
    """Calls :meth:`step` every ``interval`` seconds on a daemon thread named ``name``,
    from :meth:`start` until :meth:`stop`."""

    def __init__(self, name: str, interval: float) -> None:
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    @abstractmethod
    def step(self) -> None:
        """One round of work."""

    def start(self) -> Self:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self.step()

    def stop(self) -> None:
        """Ask the thread to end and wait for it (at most 5 s)."""
        self._stop.set()
        self._thread.join(5)
