"""``hangar usage``: tokens and cost of this device's agent sessions, by task, project, day or
model (read directly, no hub needed; see :mod:`hangar.executor.usage` for the counting rules)."""

from __future__ import annotations

import json

import click

from hangar.cli.local_executor import open_executor


def _count(n: int) -> str:
    for size, unit in ((1_000_000_000, "B"), (1_000_000, "M"), (1_000, "k")):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


def _cost(value: float | None) -> str:
    return "-" if value is None else f"${value:,.2f}" if value >= 0.01 else f"${value:.4f}"


@click.command("usage")
@click.option(
    "--by",
    type=click.Choice(["task", "project", "day", "model"], case_sensitive=False),
    default="task",
    show_default=True,
    help="How to group the model calls.",
)
@click.option("--since", metavar="YYYY-MM-DD", help="First day counted (UTC).")
@click.option("--until", metavar="YYYY-MM-DD", help="Last day counted (UTC).")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON.")
def usage_command(by: str, since: str | None, until: str | None, as_json: bool) -> None:
    """Token usage and cost per task, project, day or model.

    Counts come from each agent's own records; a call recorded twice (a fork, a resumed
    session) counts once. Prices come from a local table ($HANGAR_HOME/prices.toml overrides
    the shipped one); a model without a price shows "-".
    """
    payload: dict[str, str] = {"by": by.lower()}
    if since:
        payload["since"] = since
    if until:
        payload["until"] = until
    with open_executor() as executor:
        report = executor.handle("runtime.usage.summary", payload)
    if as_json:
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
        return
    rows = report["rows"]
    if not rows:
        click.echo("no usage recorded by the agents on this device")
        return
    head = f"{by.upper():<44} {'CALLS':>6} {'INPUT':>8} {'CACHED':>8} {'OUTPUT':>8}"
    head += f" {'TOTAL':>8} {'COST':>10}"
    click.echo(head)
    for row in [*rows, report["total"]]:
        tokens = row["tokens"]
        cached = tokens.get("cacheRead", 0) + tokens.get("cacheWrite", 0)
        label = row["label"] if len(row["label"]) <= 44 else row["label"][:43] + "…"
        click.echo(
            f"{label:<44} {row['calls']:>6} {_count(tokens.get('input', 0)):>8} "
            f"{_count(cached):>8} {_count(tokens.get('output', 0)):>8} "
            f"{_count(row['totalTokens']):>8} {_cost(row['costUsd']):>10}"
        )
    unpriced = report["total"]["unpricedTokens"]
    if unpriced:
        click.echo(
            f"{_count(unpriced)} tokens have no price (models missing from the price table; "
            "add them to $HANGAR_HOME/prices.toml)",
            err=True,
        )
