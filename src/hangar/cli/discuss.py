"""``hangar discuss|ds -- CLI ARGS…``: discuss the plan with an agent CLI before the issue exists;
``hangar discuss list|show``: the discussions kept on the hub."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from hangar.errors import AmbiguousError, NotFoundError, UsageError
from hangar.localrun.discussion.hub_api import HttpDiscussionApi
from hangar.localrun.discussion.session import (
    DiscussOptions,
    discuss_local,
    discussion_provider,
)
from hangar.localrun.pty_runner import PtyRunner, TerminalPtyRunner
from hangar.localrun.spool import Spool
from hangar.localrun.terminal.card import Defaults
from hangar.localrun.terminal.commands import CommandRegistry
from hangar.localrun.terminal.inbox import EngineInbox
from hangar.paths import hangar_paths

CLI_ARGS = "hangar.cli_args"


class DiscussGroup(click.Group):
    """A group that is also a command: everything after ``--`` is the agent CLI."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            split = args.index("--")
            ctx.meta[CLI_ARGS] = args[split + 1 :]
            args = args[:split]
        return super().parse_args(ctx, args)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] not in self.commands:
            raise UsageError(
                f"put the agent command after `--`, e.g. `hangar {ctx.info_name} -- {args[0]}`"
            )
        return super().resolve_command(ctx, args)


def _ask(question: str) -> str | None:
    click.echo(question, err=True, nl=False)
    line = sys.stdin.readline()
    return None if not line else line.rstrip("\n")


def _say(text: str) -> None:
    click.echo(text, err=True)


def _runner(
    registry: CommandRegistry, inbox: EngineInbox, started: Callable[[int], None]
) -> PtyRunner:
    return TerminalPtyRunner(commands=registry, inbox=inbox, on_started=started)


@click.group(
    "discuss",
    cls=DiscussGroup,
    invoke_without_command=True,
    context_settings={"ignore_unknown_options": True},
)
@click.option(
    "--cwd",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Working directory of the CLI (default: the current directory).",
)
@click.option("--project", default="", help="Initial project of the issue card (name or id).")
@click.option("--assignee", default="", help="Initial assignee of the issue card (name or id).")
@click.option("-l", "--label", "labels", multiple=True, help="Initial label (repeatable).")
@click.option(
    "--comments",
    type=click.Choice(["thread", "off"]),
    default="thread",
    show_default=True,
    help="Once the work goes on in this CLI, post inputs and final replies to the issue.",
)
@click.pass_context
def discuss_group(
    ctx: click.Context,
    cwd: Path | None,
    project: str,
    assignee: str,
    labels: tuple[str, ...],
    comments: str,
) -> None:
    """Discuss the plan with an agent CLI before the issue exists.

    `/hangarcreateissue` (or the CLI's own implement-plan action) turns the plan into an
    issue. `hangar discuss -- claude`, `hangar ds -- codex`; `hangar discuss list`, `show ID`.
    """
    if ctx.invoked_subcommand is not None:
        return
    args = list(ctx.meta.get(CLI_ARGS) or [])
    if not args:
        raise UsageError("give the agent command after `--`, e.g. `hangar discuss -- codex`")
    workdir = (cwd or Path.cwd()).resolve()
    discussion_provider(args)  # a CLI that cannot discuss is refused before the hub is asked
    api = HttpDiscussionApi.from_environment()
    paths = hangar_paths()
    try:
        summary = discuss_local(
            DiscussOptions(
                args,
                workdir,
                Defaults(project=project, assignee=assignee, labels=labels),
                comments,
            ),
            api,
            _runner,
            dict(os.environ),
            (Spool(paths.discussion_spool_dir), Spool(paths.spool_dir)),
            sys.stderr,
            _ask,
            _say,
        )
    finally:
        api.close()
    for line in summary.lines():
        click.echo(line, err=True)
    sys.exit(summary.exit_code)


def _print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def _line(d: dict[str, Any]) -> str:
    issue = d.get("issueKey") or "-"
    return (
        f"{d['id'][:8]}  {d['status']:<13} {d['cliName']:<12} {issue:<9} "
        f"{d['turnCount']:>4}  {d['title'] or '(untitled)'}"
    )


@discuss_group.command("list")
@click.option("--all", "show_all", is_flag=True, help="Also the discussions that became issues.")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON.")
def list_command(show_all: bool, as_json: bool) -> None:
    """The discussions on the hub, newest first (unfinished ones unless --all)."""
    api = HttpDiscussionApi.from_environment()
    try:
        found = api.list(status=None if show_all else "open")
    finally:
        api.close()
    if as_json:
        _print_json({"discussions": found})
        return
    if not found:
        click.echo("No discussions." if show_all else "No unfinished discussions.")
        return
    click.echo(f"{'ID':<8}  {'STATUS':<13} {'CLI':<12} {'ISSUE':<9} TURNS  TITLE")
    for discussion in found:
        click.echo(_line(discussion))


def _resolve(api: HttpDiscussionApi, wanted: str) -> str:
    """A full id, or a unique prefix of one (as `list` shows them)."""
    if len(wanted) == 36:
        return wanted
    ids = [d["id"] for d in api.list(limit=1000) if d["id"].startswith(wanted)]
    if not ids:
        raise NotFoundError(kind="discussion", key=wanted)
    if len(ids) > 1:
        raise AmbiguousError(kind="discussion", key=wanted, candidates=tuple(ids))
    return str(ids[0])


@discuss_group.command("show")
@click.argument("discussion")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON.")
def show_command(discussion: str, as_json: bool) -> None:
    """One discussion's saved questions, answers and plan (DISCUSSION: its id or a prefix)."""
    api = HttpDiscussionApi.from_environment()
    try:
        found = api.get(_resolve(api, discussion))
    finally:
        api.close()
    if as_json:
        _print_json(found)
        return
    click.echo(f"{found['title'] or '(untitled)'}")
    issue = f" → {found['issueKey']}" if found.get("issueKey") else ""
    click.echo(f"{found['id']} · {found['cliName']} · {found['status']}{issue}")
    names = {"user": "You", "assistant": found["cliName"], "plan": "Plan"}
    for turn in found.get("turns", []):
        click.echo("")
        click.echo(f"{names.get(turn['role'], turn['role'])}:")
        for line in str(turn["content"]).splitlines() or [""]:
            click.echo(f"  {line}")


discuss_alias = DiscussGroup(
    "ds",
    commands=discuss_group.commands,
    callback=discuss_group.callback,
    params=discuss_group.params,
    invoke_without_command=True,
    help="Short for `hangar discuss`.",
    context_settings={"ignore_unknown_options": True},
)
