"""The commands the inline menu offers, in registration order (LR-033).

A :class:`Command` is a name that starts with ``/hangar`` (the trigger), a one-line summary
for the menu, and ``start``: called when the user runs it (Enter in the menu, or Enter on the
full name typed by hand, LR-044); it may return an overlay to show (the issue card) or
None. ``hangar discuss`` registers ``/hangarcreateissue``; ``hangar run`` shows the menu
only once its registry holds a command (:attr:`CommandRegistry.empty`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hangar.errors import UsageError

if TYPE_CHECKING:
    from hangar.localrun.terminal.overlay import Host, Overlay

TRIGGER = "/hangar"


@dataclass(frozen=True)
class Command:
    name: str
    summary: str
    start: Callable[[Host], Overlay | None]


class CommandRegistry:
    def __init__(self, commands: tuple[Command, ...] = ()) -> None:
        self._commands: list[Command] = []
        for command in commands:
            self.register(command)

    def register(self, command: Command) -> None:
        if not command.name.startswith(TRIGGER) or command.name == TRIGGER:
            raise UsageError(f"a menu command must be named {TRIGGER}<word>, not {command.name!r}")
        if any(existing.name == command.name for existing in self._commands):
            raise UsageError(f"the menu command {command.name} is registered twice")
        self._commands.append(command)

    def __iter__(self) -> Iterator[Command]:
        return iter(self._commands)

    def __len__(self) -> int:
        return len(self._commands)

    @property
    def empty(self) -> bool:
        return not self._commands

    def named(self, name: str) -> Command | None:
        return next((c for c in self._commands if c.name == name), None)

    def completion(self, typed: str) -> Command | None:
        """The command Tab completes ``typed`` to: the first, in registration order, whose
        name starts with it; only for input that has reached the trigger (LR-045)."""
        if not typed.startswith(TRIGGER):
            return None
        return next((c for c in self._commands if c.name.startswith(typed)), None)


def run_commands() -> CommandRegistry:
    """What ``hangar run`` offers inside a run: nothing yet, so it shows no menu and passes
    the terminal through untouched; a command that makes sense inside a run registers here."""
    return CommandRegistry()
