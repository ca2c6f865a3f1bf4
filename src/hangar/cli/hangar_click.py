"""The click classes every hangar command uses, so every error is answered the same way.

- A :class:`~hangar.errors.UsageError` raised by a command is shown with *that command's*
  usage line (``Usage: hangar tasks purge …``), exit status 2, like click's own usage errors.
- Any other :class:`~hangar.errors.HangarError` prints one line, ``hangar: error: …``, on
  stderr and exits 1; any other exception (a bug) one line ``hangar: internal error: …``
  (the traceback goes to the debug log). Nothing prints a traceback at a user.

Commands are declared with ``@click.command(..., cls=HangarCommand)`` or on a
:class:`HangarGroup`, whose ``.command()`` and ``.group()`` make these classes too.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

import click
import click.formatting

from hangar.cli.lazy import LazyGroup
from hangar.errors import HangarError, UsageError, shown


def _invoke_reporting(ctx: click.Context, invoke: Any) -> Any:
    try:
        return invoke(ctx)
    except UsageError as exc:
        raise click.UsageError(str(exc), ctx) from None
    except HangarError as exc:
        click.echo(f"hangar: error: {exc}", err=True)
        ctx.exit(1)
    except (click.ClickException, click.exceptions.Exit, click.Abort):
        raise
    except Exception as exc:  # a bug: still one line for the user, the detail in the log
        import logging  # only on this path: ``hangar --help`` needs no logging

        logging.getLogger("hangar").debug("unexpected error", exc_info=exc)
        click.echo(
            f"hangar: internal error: {type(exc).__name__}: {shown(str(exc), 200)}"
            " (please report it)",
            err=True,
        )
        ctx.exit(1)


def help_width() -> int:
    """The width click's help formatter would pick (the terminal's columns, at most 80, less
    2, at least 50), found without importing :mod:`shutil` and the compression modules it
    pulls in: a few milliseconds of every ``hangar --help``."""
    columns = 0
    with contextlib.suppress(ValueError):
        columns = int(os.environ.get("COLUMNS", "0"))
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    if columns <= 0:
        columns = 80
    return max(min(columns, 80) - 2, 50)


class HangarCommand(click.Command):
    """A command whose hangar errors are answered as the module docstring says."""

    def invoke(self, ctx: click.Context) -> Any:
        return _invoke_reporting(ctx, super().invoke)


class HangarGroup(LazyGroup):
    """A group whose own errors are answered likewise and whose subcommands are hangar's
    (commands given as ``lazy=`` are imported only when used, see :mod:`hangar.cli.lazy`)."""

    command_class = HangarCommand
    group_class = type  # subgroups are HangarGroups as well

    def invoke(self, ctx: click.Context) -> Any:
        return _invoke_reporting(ctx, super().invoke)

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        # The root context carries the help width; subcommands' contexts inherit it. A width
        # forced by click (its test runner) is left to click.
        if parent is None and click.formatting.FORCED_WIDTH is None:
            extra.setdefault("terminal_width", help_width())
        return super().make_context(info_name, args, parent, **extra)
