"""What the insertion area shows, and what it may ask of the engine.

An :class:`Overlay` (the command menu, the issue card) is a small state machine: the engine
asks it how many rows it wants, renders it into exactly that many rows, and hands it every
key while it is open. It answers each key with an :class:`Action`. :class:`Host` is what a
command or an overlay may ask of the engine outside its rows: end the provider, show the
success notice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from hangar.localrun.terminal.keys import Token


@dataclass(frozen=True)
class Space:
    """Where an overlay may draw: ``rows`` is the most it can get on this screen."""

    rows: int
    columns: int


class Host(Protocol):
    def end_provider(self) -> None:
        """Ask the provider to end (SIGHUP to its process group)."""
        ...

    def show_notice(self, lines: list[str], *, keep_rows: bool) -> None:
        """Show ``lines`` (at most two) on the local terminal once the provider has redrawn:
        in two reserved bottom rows protected for a while (``keep_rows``, the work goes on
        in this CLI) or after the provider has exited (LR-100..LR-113)."""
        ...


@dataclass(frozen=True)
class Stay:
    """Keep the overlay open and redraw it."""


@dataclass(frozen=True)
class Close:
    """Close the area; then call ``after`` (if any) with the host."""

    after: Callable[[Host], None] | None = None


@dataclass(frozen=True)
class PassThrough:
    """Close the overlay and treat the key as ordinary input to the provider."""


@dataclass(frozen=True)
class Busy:
    """Redraw (the overlay now shows that it works), run ``work``, then act on what it
    returns."""

    work: Callable[[], Action]


@dataclass(frozen=True)
class Complete:
    """Close, clear the provider's edit line with Ctrl+U, write ``text`` (LR-041)."""

    text: str


@dataclass(frozen=True)
class Run:
    """Close, clear the provider's edit line, then start the command named ``name``."""

    name: str


Action = Stay | Close | PassThrough | Busy | Complete | Run


class Overlay(Protocol):
    fill: bool
    """True: take all the space the screen allows (the card); False: :meth:`rows` (the menu)."""

    def rows(self, space: Space) -> int:
        """Rows wanted in ``space`` (at most ``space.rows``)."""
        ...

    def render(self, columns: int, rows: int) -> list[str]:
        """Exactly ``rows`` lines, each at most ``columns`` cells wide."""
        ...

    def handle(self, token: Token) -> Action: ...
