"""Waiting for the provider's output to settle, with a cap (LR-028..LR-031, LR-101).

:class:`QuietWait` starts when hangar has written the user's input to the provider. It is
ready once the provider has produced output and then been quiet for ``quiet`` seconds, or
once ``cap`` seconds have passed since the start, whichever comes first: no output at all,
or output that never stops, still ends at the cap (the 100 ms counts from the trigger input,
the reading that bounds the user's wait).
"""

from __future__ import annotations

from dataclasses import dataclass

MENU_QUIET = 0.010
MENU_CAP = 0.100
REPAINT_QUIET = 0.030
REPAINT_CAP = 0.400
"""After a resize of the provider's PTY: its repaint is larger than an echo."""
NOTICE_QUIET = 0.300
NOTICE_CAP = 3.0
"""The stable window before the success notice: independent of the menu's echo wait."""
NOTICE_PROTECTION = 20.0
"""How long the notice's reserved rows are kept from when it is first really shown."""


@dataclass
class QuietWait:
    started: float
    quiet: float = MENU_QUIET
    cap: float = MENU_CAP
    last_output: float | None = None
    settle_from_start: bool = False
    """True: a provider that writes nothing is quiet from the start (the notice's stable
    window); False: without output the wait runs to the cap (the menu's echo wait)."""

    def output(self, now: float) -> None:
        self.last_output = now

    def deadline(self) -> float:
        """The earliest time :meth:`ready` can become true without more output."""
        capped = self.started + self.cap
        if self.last_output is None:
            return self.started + self.quiet if self.settle_from_start else capped
        return min(capped, self.last_output + self.quiet)

    def ready(self, now: float) -> bool:
        return now >= self.deadline()
