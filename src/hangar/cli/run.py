"""``hangar run ISSUE -- CLI ARGS…``: run an agent CLI in this terminal, bound to an issue."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from hangar.cli.hangar_click import HangarCommand
from hangar.errors import UsageError
from hangar.localrun.hub_api import HttpRunApi
from hangar.localrun.pty_runner import TerminalPtyRunner
from hangar.localrun.run_session import RunOptions, run_local
from hangar.localrun.spool import Spool
from hangar.localrun.terminal.commands import run_commands
from hangar.paths import hangar_paths


@click.command(
    "run",
    cls=HangarCommand,
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.argument("issue")
@click.argument("command", nargs=-1, type=click.UNPROCESSED, required=True)
@click.option(
    "--cwd",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Working directory of the CLI (default: the current directory).",
)
@click.option("--no-status-update", is_flag=True, help="Keep a backlog/todo issue's status.")
@click.option(
    "--comments",
    type=click.Choice(["thread", "off"]),
    default="thread",
    show_default=True,
    help="Post your inputs and the agent's final replies as a comment thread on the issue.",
)
def run_command(
    issue: str,
    command: tuple[str, ...],
    cwd: Path | None,
    no_status_update: bool,
    comments: str,
) -> None:
    """Run CLI (codex, claude, a plugin) in this terminal bound to ISSUE; its log syncs.

    Put hangar's options before `--` and the agent's command after it:
    `hangar run HGR-12 --cwd ~/src/app -- claude --model opus`. Plugins:
    `hangar local-run provider list`.
    """
    args = list(command)
    if args and args[0] == "--":
        args = args[1:]
    if not args:
        raise UsageError("give the agent command after `--`, e.g. `hangar run HGR-1 -- codex`")
    workdir = (cwd or Path.cwd()).resolve()
    api = HttpRunApi.from_environment()
    try:
        summary = run_local(
            RunOptions(issue, args, workdir, no_status_update, comments),
            api,
            TerminalPtyRunner(commands=run_commands()),
            dict(os.environ),
            Spool(hangar_paths().spool_dir),
            sys.stderr,
        )
    finally:
        api.close()
    click.echo(summary.line(), err=True)
    sys.exit(summary.exit_code)
