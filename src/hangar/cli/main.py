"""Entry point of the ``hangar`` command.

Deliberate errors (:class:`hangar.errors.HangarError`) print one line on stderr and exit 1;
usage errors show the usage of the command that was used and exit 2
(:mod:`hangar.cli.hangar_click`); nothing ever prints a traceback at a user.

Every command is a :class:`~hangar.cli.lazy.LazyCommand`: ``hangar --help`` and ``hangar
version`` import no command module, and each command imports only what it uses (no web stack
or ORM outside ``serve``, ``status`` and the hub clients).
"""

from __future__ import annotations

import sys

import click

from hangar import __version__
from hangar.cli.hangar_click import HangarGroup
from hangar.cli.lazy import LazyCommand

COMMANDS: dict[str, LazyCommand] = {
    "version": LazyCommand("hangar.cli.info:version_command", "Print hangar's version."),
    "paths": LazyCommand(
        "hangar.cli.info:paths_command",
        "Print where hangar keeps its state and where each agent keeps its sessions.",
    ),
    "status": LazyCommand(
        "hangar.cli.info:status_command",
        "Open this device's state (creating and migrating it) and print a summary.",
    ),
    "serve": LazyCommand(
        "hangar.cli.serve:serve_command",
        "Run the hub: HTTP API under /api, the web UI, live updates; Ctrl-C stops.",
    ),
    "issue": LazyCommand(
        "hangar.cli.issues:issue_group",
        "Create, list, show, edit and comment on issues of the hub.",
    ),
    "tasks": LazyCommand(
        "hangar.cli.tasks:tasks_group", "Agent sessions on this device (Codex, Claude Code, …)."
    ),
    "search": LazyCommand(
        "hangar.cli.search:search_command",
        'Search titles and transcripts (words are ANDed, "a phrase", prefix*).',
    ),
    "usage": LazyCommand(
        "hangar.cli.usage:usage_command", "Token usage and cost per task, project, day or model."
    ),
    "run": LazyCommand(
        "hangar.cli.run:run_command",
        "Run CLI (codex, claude, a plugin) in this terminal bound to ISSUE; its log syncs.",
    ),
    "local-run": LazyCommand(
        "hangar.cli.local_run:local_run_group", "Local runs (`hangar run`) on this machine."
    ),
    "__claude-session-hook": LazyCommand(
        "hangar.cli.claude_session_hook:claude_session_hook_command", "", hidden=True
    ),
}
"""Every top-level command: where it lives and the line ``--help`` shows for it."""


@click.group(
    cls=HangarGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(__version__, "-V", "--version", prog_name="hangar")
def cli() -> None:
    """hangar: see, search and continue the work of every coding-agent CLI on this machine."""


def main() -> None:
    try:
        cli.main(prog_name="hangar")
    except KeyboardInterrupt:
        click.echo("hangar: interrupted", err=True)
        sys.exit(130)
