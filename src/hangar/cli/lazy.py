"""Click groups whose commands are imported only when they run.

A command module may import the executor, the hub's web stack or the HTTP client; importing all
of them for ``hangar --help`` or ``hangar version`` would cost a second before anything is
printed. A :class:`LazyGroup` names each command by a ``"module:attribute"`` reference and a
one-line summary, so listing the commands (``--help``) imports none of them, and running one
imports that one module only. Loading a command then freezes what the imports made
(:func:`gc.freeze`): the cycle collector never walks the modules again.

The summary is the text ``--help`` shows for the command; a test checks that it equals the
command's own short help, so the two cannot drift apart.
"""

from __future__ import annotations

import gc
import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import click


@dataclass(frozen=True)
class LazyCommand:
    """A command known by reference until it is used."""

    target: str
    """``"package.module:attribute"`` of the :class:`click.Command`."""
    summary: str
    """The command's help up to its first blank line (what ``--help`` abbreviates)."""
    hidden: bool = False

    def short_help(self, limit: int) -> str:
        """The summary abbreviated as click abbreviates a loaded command's help."""
        return click.Command(None, help=self.summary).get_short_help_str(limit)

    def load(self) -> click.Command:
        module_name, _, attribute = self.target.partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.target} is not a click command")
        # What the import made lives until the process exits: out of the cycle collector's
        # sight, its passes walk only what the command itself makes (a tail-first ``tasks
        # show`` spent ~10 % of its time walking the imported modules).
        gc.freeze()
        return command


class LazyGroup(click.Group):
    """A group that imports a command's module the first time the command is looked up."""

    def __init__(
        self, *args: Any, lazy: Mapping[str, LazyCommand] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, LazyCommand] = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in self.lazy:
            command = self.lazy[cmd_name].load()
            self.add_command(command, cmd_name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands table of ``--help``, from the summaries of commands not yet loaded."""
        entries: list[tuple[str, click.Command | LazyCommand]] = []
        for name in self.list_commands(ctx):
            entry: click.Command | LazyCommand = self.commands.get(name) or self.lazy[name]
            if not entry.hidden:
                entries.append((name, entry))
        if not entries:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in entries)
        rows: Sequence[tuple[str, str]] = [
            (
                name,
                entry.get_short_help_str(limit)
                if isinstance(entry, click.Command)
                else entry.short_help(limit),
            )
            for name, entry in entries
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)
