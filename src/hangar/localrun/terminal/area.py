"""The insertion area shared by the menu and the card (LR-046..LR-056), as geometry and bytes.

Two ways to make room, one per kind of provider screen (see ``docs/terminal-menu.md``):

:class:`InlineArea` — the provider draws on the main screen. From the cursor row reported by
the terminal, skip two provider-owned rows (a top margin hangar never inserts or deletes,
LR-048..LR-050), and insert the needed rows there with IL; if the screen has too little room
below, scroll it up first with line feeds at the bottom row (history moves into the
scrollback, nothing is overwritten). Closing deletes exactly the inserted rows with DL at the
same anchor and puts the cursor back on its row and column (moved up by the scroll, if any).

:class:`ShrinkArea` — the provider draws on the alternate screen, where nothing can be
inserted without overwriting it. Its PTY is made ``rows`` shorter, it repaints in the rows it
now has, and the area is drawn in the freed bottom rows; the provider's own rows below its
input box stay its own and play the margin's part. Closing erases the freed rows, puts the
cursor back and gives the PTY its full height back, so the provider repaints everything.

hangar never switches to the alternate screen itself (LR-056). Every drawing saves and
restores the cursor (DECSC/DECRC, which also keeps the provider's colours), and resets SGR
before each row, so provider attributes never leak into the area.
"""

from __future__ import annotations

from dataclasses import dataclass

from hangar.localrun.terminal import ansi

MARGIN = 2
CARD_MIN_ROWS = 12
"""An inline card gets at least this many rows (the screen is scrolled up for them)."""
PROVIDER_KEEP = 8
"""In shrink mode the provider keeps at least this many rows (its input box and hints)."""


def _row(row: int, text: str) -> str:
    return f"{ansi.move_to(row)}\x1b[0m{ansi.ERASE_LINE}{text}"


@dataclass(frozen=True)
class InlineArea:
    cursor_row: int
    cursor_column: int
    screen_rows: int
    rows: int
    scroll: int

    @classmethod
    def place(
        cls, cursor: tuple[int, int], screen_rows: int, wanted: int, fill: bool
    ) -> InlineArea | None:
        """Where ``wanted`` rows go below ``cursor`` (1-based); None if the screen is too
        small for any row. ``fill``: the card takes the height minus the cursor row and the
        margin (LR-052), at least :data:`CARD_MIN_ROWS` where the screen has them."""
        row = min(max(cursor[0], 1), screen_rows)
        below = screen_rows - row - MARGIN
        most = screen_rows - 1 - MARGIN  # the cursor row itself stays on screen
        if fill:
            wanted = max(below, min(CARD_MIN_ROWS, most))
        rows = min(wanted, most)
        if rows < 1:
            return None
        scroll = max(0, rows - below)
        return cls(row, max(cursor[1], 1), screen_rows, rows, scroll)

    @property
    def anchor(self) -> int:
        """First inserted row, after the scroll."""
        return self.cursor_row - self.scroll + MARGIN + 1

    def restore(self) -> str:
        return ansi.RESTORE_CURSOR + ansi.move_to(self.cursor_row - self.scroll, self.cursor_column)

    def open(self) -> str:
        scroll = ansi.move_to(self.screen_rows) + "\n" * self.scroll if self.scroll else ""
        return ansi.SAVE_CURSOR + scroll + ansi.move_to(self.anchor) + ansi.insert_lines(self.rows)

    def draw(self, lines: list[str]) -> str:
        body = "".join(_row(self.anchor + i, line) for i, line in enumerate(lines[: self.rows]))
        return body + self.restore()

    def close(self) -> str:
        return ansi.move_to(self.anchor) + ansi.delete_lines(self.rows) + self.restore()


@dataclass(frozen=True)
class ShrinkArea:
    screen_rows: int
    rows: int

    @classmethod
    def place(cls, screen_rows: int, wanted: int, fill: bool) -> ShrinkArea | None:
        keep = min(PROVIDER_KEEP, max(screen_rows // 3, MARGIN + 1))
        most = screen_rows - keep
        rows = most if fill else min(wanted, most)
        return cls(screen_rows, rows) if rows >= 1 else None

    @property
    def provider_rows(self) -> int:
        return self.screen_rows - self.rows

    @property
    def anchor(self) -> int:
        return self.provider_rows + 1

    def open(self) -> str:
        return ansi.SAVE_CURSOR

    def draw(self, lines: list[str]) -> str:
        body = "".join(_row(self.anchor + i, line) for i, line in enumerate(lines[: self.rows]))
        return body + ansi.RESTORE_CURSOR

    def close(self) -> str:
        return self.draw([""] * self.rows)


Area = InlineArea | ShrinkArea
