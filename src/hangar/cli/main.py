"""Entry point of the ``hangar`` command.

Deliberate errors (:class:`hangar.errors.HangarError`) print one line on stderr and exit 1;
usage errors show the usage of the command that was used and exit 2
(:mod:`hangar.cli.hangar_click`); nothing ever prints a traceback at a user.
"""

from __future__ import annotations

import sys

import click

from hangar import __version__
from hangar.cli.claude_session_hook import claude_session_hook_command
from hangar.cli.hangar_click import HangarGroup
from hangar.cli.info import paths_command, status_command, version_command
from hangar.cli.issues import issue_group
from hangar.cli.local_run import local_run_group
from hangar.cli.run import run_command
from hangar.cli.search import search_command
from hangar.cli.serve import serve_command
from hangar.cli.tasks import tasks_group
from hangar.cli.tasks_lifecycle import COMMANDS as TASK_LIFECYCLE_COMMANDS
from hangar.cli.usage import usage_command


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
cli.add_command(usage_command)
for _command in TASK_LIFECYCLE_COMMANDS:
    tasks_group.add_command(_command)
cli.add_command(run_command)
cli.add_command(local_run_group)
cli.add_command(claude_session_hook_command)


def main() -> None:
    try:
        cli.main(prog_name="hangar")
    except KeyboardInterrupt:
        click.echo("hangar: interrupted", err=True)
        sys.exit(130)
