"""The notice printed after an issue is created (LR-100..LR-113).

:func:`success_lines` is its text: ``【title】Issue HGR-22 created`` and the link in bright
blue. :class:`ReservedNotice` is the continue-in-this-CLI case as a small clocked state
machine: the provider's PTY is two rows shorter for the notice's sake (LR-104); the notice is
drawn in those two bottom rows once the provider's output has been stable for a window of its
own (independent of the menu's echo wait, LR-101), drawn again whenever the provider has
written and settled again (it may clear the whole screen, LR-106), and protected for
:data:`~hangar.localrun.terminal.timing.NOTICE_PROTECTION` seconds from when it is first
really shown (LR-105). Then it is released: the rows go back to the provider, nothing is
erased (LR-107) and nothing is redrawn any more (LR-108). The notice is only ever written to
the local terminal (LR-110, LR-112).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from hangar.localrun.terminal import ansi
from hangar.localrun.terminal.timing import NOTICE_CAP, NOTICE_PROTECTION, NOTICE_QUIET, QuietWait

ROWS = 2


def success_lines(title: str, key: str, url: str) -> list[str]:
    return [f"【{title}】Issue {key} created", ansi.blue(url)]


class NoticeStep(enum.Enum):
    DRAW = "draw"
    RELEASE = "release"


@dataclass
class ReservedNotice:
    lines: list[str]
    started: float
    shown_at: float | None = None
    released: bool = False
    wait: QuietWait | None = field(default=None)

    def __post_init__(self) -> None:
        self.wait = QuietWait(self.started, NOTICE_QUIET, NOTICE_CAP, settle_from_start=True)

    def output(self, now: float) -> None:
        """The provider wrote: draw again once it is stable (only inside the window)."""
        if self.released:
            return
        if self.wait is None:
            self.wait = QuietWait(now, NOTICE_QUIET, NOTICE_CAP)
        self.wait.output(now)

    def deadline(self) -> float | None:
        if self.released:
            return None
        times = [self.wait.deadline()] if self.wait is not None else []
        if self.shown_at is not None:
            times.append(self.shown_at + NOTICE_PROTECTION)
        return min(times) if times else None

    def step(self, now: float) -> NoticeStep | None:
        if self.released:
            return None
        if self.shown_at is not None and now >= self.shown_at + NOTICE_PROTECTION:
            self.released = True
            return NoticeStep.RELEASE
        if self.wait is not None and self.wait.ready(now):
            self.wait = None
            if self.shown_at is None:
                self.shown_at = now
            return NoticeStep.DRAW
        return None

    def draw(self, screen_rows: int, columns: int) -> str:
        rows = [*self.lines[:ROWS], *[""] * (ROWS - len(self.lines))]
        body = "".join(
            f"{ansi.move_to(screen_rows - ROWS + 1 + i)}\x1b[0m{ansi.ERASE_LINE}"
            f"{ansi.fit(line, columns - 1)}"
            for i, line in enumerate(rows)
        )
        return ansi.SAVE_CURSOR + body + ansi.RESTORE_CURSOR


def reserve_main_screen(screen_rows: int) -> str:
    """On the main screen: scroll the content up by the notice's rows (into the scrollback,
    nothing is overwritten), keep the cursor on its text, and confine the provider's
    scrolling to the rows above the notice."""
    scroll = ansi.move_to(screen_rows) + "\n" * ROWS
    region = ansi.SAVE_CURSOR + ansi.scroll_region(1, screen_rows - ROWS) + ansi.RESTORE_CURSOR
    return ansi.SAVE_CURSOR + scroll + ansi.RESTORE_CURSOR + f"\x1b[{ROWS}A" + region


def release_main_screen() -> str:
    return ansi.SAVE_CURSOR + ansi.RESET_SCROLL_REGION + ansi.RESTORE_CURSOR
