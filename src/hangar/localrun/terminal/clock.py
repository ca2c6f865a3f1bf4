"""Time as the terminal engine sees it: one injectable monotonic clock.

Every timing rule (the menu's quiet window, the notice's protection window, the Esc
timeout) reads :meth:`Clock.now`, so the fake-terminal tests drive time by hand
(:class:`ManualClock`) instead of sleeping.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on a monotonic scale."""
        ...


class SystemClock:
    def now(self) -> float:
        return time.monotonic()


class ManualClock:
    """A clock that moves only when told to."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock never goes back")
        self._now += seconds

    def set(self, value: float) -> None:
        if value < self._now:
            raise ValueError("a clock never goes back")
        self._now = value
