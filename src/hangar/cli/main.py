"""Entry point of the ``hangar`` command.

Deliberate errors (:class:`hangar.errors.HangarError`) print one line on stderr and exit 1
(2 for usage errors); nothing ever prints a traceback at a user.
"""

from __future__ import annotations

import sys

import click

from hangar import __version__
from hangar.cli.claude_plan_hook import claude_plan_hook_command
from hangar.cli.claude_session_hook import claude_session_hook_command
from hangar.cli.discuss import discuss_alias, discuss_group
from hangar.cli.info import paths_command, status_command, version_command
from hangar.cli.issues import issue_group
from hangar.cli.local_run import local_run_group
from hangar.cli.run import run_command
from hangar.cli.search import search_command
from hangar.cli.serve import serve_command
from hangar.cli.tasks import tasks_group
from hangar.cli.tasks_lifecycle import COMMANDS as TASK_LIFECYCLE_COMMANDS
from hangar.errors import HangarError, UsageError


class HangarGroup(click.Group):
    """A click group that turns hangar errors into one-line messages."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except UsageError as exc:
            raise click.UsageError(str(exc), ctx) from None
        except HangarError as exc:
            click.echo(f"hangar: error: {exc}", err=True)
            ctx.exit(1)


@click.group(cls=HangarGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="hangar")
def cli() -> None:
    """hangar: see, search and continue the work of every coding-agent CLI on this machine."""


cli.add_command(version_command)
cli.add_command(paths_command)
cli.add_command(status_command)
cli.add_command(serve_command)
cli.add_command(issue_group)
cli.add_command(tasks_group)
cli.add_command(search_command)
for _command in TASK_LIFECYCLE_COMMANDS:
    tasks_group.add_command(_command)
cli.add_command(run_command)
cli.add_command(discuss_group)
cli.add_command(discuss_alias)
cli.add_command(local_run_group)
cli.add_command(claude_session_hook_command)
cli.add_command(claude_plan_hook_command)


def main() -> None:
    try:
        cli.main(prog_name="hangar")
    except KeyboardInterrupt:
        click.echo("hangar: interrupted", err=True)
        sys.exit(130)
