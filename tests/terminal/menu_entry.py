"""A test entry point: the real PTY runner with the terminal engine and test commands.

``python menu_entry.py --log FILE [--plan FILE --hub URL --token TOKEN] -- CLI ARGS…`` runs
the CLI exactly as ``hangar run`` does (``TerminalPtyRunner``), with two commands registered
until ``hangar discuss`` registers its own:

- ``/hangarcreateissue``: the issue card over the plan in ``--plan``, its lists from the hub
  at ``--hub``, creating the issue there (the link is the hub's issue page);
- ``/hangarping``: appends ``ping`` to ``--log`` (so a test sees that Enter ran it).

Every card result is appended to ``--log`` as one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hangar.hub_client import HubClient
from hangar.localrun.pty_runner import ChildCommand, TerminalPtyRunner
from hangar.localrun.terminal.card import Defaults, IssueCard, finish_card
from hangar.localrun.terminal.catalog import HubIssueCatalog
from hangar.localrun.terminal.commands import Command, CommandRegistry
from hangar.localrun.terminal.issue_draft import CardResult, CreatedIssue, IssueDraft
from hangar.localrun.terminal.overlay import Host, Overlay


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--plan", type=Path)
    parser.add_argument("--hub", default="")
    parser.add_argument("--token", default="")
    parser.add_argument("--project", default="")
    parser.add_argument("cli", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    cli = options.cli[1:] if options.cli[:1] == ["--"] else options.cli
    log: Path = options.log

    def note(entry: object) -> None:
        with log.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")

    def ping(_host: Host) -> Overlay | None:
        note("ping")
        return None

    commands = CommandRegistry((Command("/hangarping", "Write ping to the log", ping),))
    if options.hub:
        client = HubClient(options.hub, options.token, timeout=10)

        def create(draft: IssueDraft) -> CreatedIssue:
            issue = client.post("/api/issues", draft.to_api())
            url = f"{options.hub}/issues/{issue['key']}"
            return CreatedIssue(str(issue["key"]), str(issue["title"]), url)

        def finished(result: CardResult, host: Host) -> None:
            note(
                {
                    "outcome": result.outcome.value,
                    "key": result.issue.key if result.issue else None,
                    "fields": result.draft.to_api(),
                }
            )
            finish_card(result, host)

        def open_card(_host: Host) -> Overlay | None:
            plan = options.plan.read_text(encoding="utf-8") if options.plan else "# Plan\n"
            return IssueCard(
                plan,
                HubIssueCatalog(client),
                create,
                defaults=Defaults(project=options.project),
                on_result=finished,
            )

        commands.register(Command("/hangarcreateissue", "Create an issue from the plan", open_card))
    runner = TerminalPtyRunner(commands=commands)
    code = runner.run(ChildCommand(cli, Path.cwd(), dict(__import__("os").environ)))
    note({"exit": code})
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
