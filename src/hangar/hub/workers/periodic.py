"""A hub background worker: one daemon thread that runs a step every few seconds.

A step that fails (the database restarting, a lost connection) is logged and tried again at
the next interval: a worker never dies of one bad round.
"""

from __future__ import annotations

import logging
import threading
from abc import ABC, abstractmethod
from typing import Self

log = logging.getLogger("hangar.hub.workers")


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
            try:
                self.step()
            except Exception as exc:
                log.warning("%s: step failed, retrying: %s", self._thread.name, exc)

    def stop(self) -> None:
        """Ask the thread to end and wait for it (at most 5 s)."""
        self._stop.set()
        self._thread.join(5)
