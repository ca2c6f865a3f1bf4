"""``hangar search QUERY``: full-text search over this device's agent sessions (no hub needed).

The first run builds the index (a progress bar on stderr while it does); later runs index only
what changed. ``--json`` prints the RPC shape ``{"results": [...]}``; matches in snippets are
wrapped in ``«…»`` (highlighted in a terminal).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from hangar.cli.hangar_click import HangarCommand
from hangar.cli.local_executor import open_executor
from hangar.cli.tasks import relative_time
from hangar.executor.search_index import IndexProgress
from hangar.executor.search_text import MARK_CLOSE, MARK_OPEN, compile_query
from hangar.executor.service import Executor


def _index_with_progress(executor: Executor, show: bool) -> None:
    bar: Any = None
    shown = 0

    def report(state: IndexProgress) -> None:
        nonlocal bar, shown
        if not show or state.total_bytes < 1 << 20:
            return
        if bar is None:
            bar = click.progressbar(
                length=state.total_bytes, label="indexing sessions", file=sys.stderr
            )
            bar.__enter__()
        bar.update(state.done_bytes - shown)
        shown = state.done_bytes

    try:
        executor.search.sync(report)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)


def _highlight(snippet: str) -> str:
    out = snippet.replace("\n", " ")
    parts = out.split(MARK_OPEN)
    text = parts[0]
    for part in parts[1:]:
        hit, _, rest = part.partition(MARK_CLOSE)
        text += click.style(hit, bold=True, fg="yellow") + rest
    return text


@click.command("search", cls=HangarCommand)
@click.argument("query")
@click.option("--json", "as_json", is_flag=True, help='Print {"results": [...]}.')
@click.option("--limit", type=click.IntRange(1, 100), default=20, show_default=True)
@click.option("--all", "include_archived", is_flag=True, help="Include archived sessions.")
@click.option("--tool-output", "include_output", is_flag=True, help="Also search tool output.")
@click.option("--project", "project", help="Only sessions of this Project (its main directory).")
@click.option(
    "--order",
    type=click.Choice(["date", "relevance"]),
    default="date",
    show_default=True,
    help="Newest sessions first, or best matches first.",
)
@click.option("--agent", "runtime", help="Only this agent's sessions (claude, codex, …).")
@click.option("--since", help="Only sessions updated on or after this date (YYYY-MM-DD).")
@click.option("--before", help="Only sessions updated before this date (YYYY-MM-DD).")
def search_command(
    query: str,
    as_json: bool,
    limit: int,
    include_archived: bool,
    include_output: bool,
    project: str | None,
    order: str,
    runtime: str | None,
    since: str | None,
    before: str | None,
) -> None:
    """Search titles and transcripts (words are ANDed, "a phrase", prefix*)."""
    compile_query(query)  # a bad query is reported before any indexing
    payload: dict[str, Any] = {
        "query": query,
        "limit": limit,
        "includeArchived": include_archived,
        "includeToolOutput": include_output,
    }
    if project:
        payload["projectId"] = project
    payload["order"] = order
    for key, value in (("runtime", runtime), ("updatedAfter", since), ("updatedBefore", before)):
        if value:
            payload[key] = value
    with open_executor() as executor:
        _index_with_progress(executor, show=sys.stderr.isatty() or not as_json)
        data = executor.handle("runtime.tasks.search", payload)
    if as_json:
        click.echo(json.dumps({"results": data["results"]}, indent=2, ensure_ascii=False))
        return
    for hit in data["results"]:
        where = "title" if hit["messageIndex"] is None else f"#{hit['messageIndex']} {hit['role']}"
        click.echo(
            f"{hit['localTaskId'][:10]}  {hit['runtime']:<8} {relative_time(hit['updatedAt']):>9}"
            f"  {hit['title'][:60]}  [{hit['workspacePath'] or '-'}]"
        )
        more = hit.get("matchCount", 1) - 1
        extra = f"  (+{more} more match{'es' if more > 1 else ''})" if more > 0 else ""
        click.echo(f"    {where}: {_highlight(hit['snippet'])}{extra}")
    if not data["results"]:
        click.echo("no matches")
