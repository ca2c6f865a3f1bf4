"""``hangar local-run …``: maintenance of local runs on this machine."""

from __future__ import annotations

import click

from hangar.cli.hangar_click import HangarGroup
from hangar.cli.local_run_provider import provider_group
from hangar.localrun.hub_api import HttpRunApi
from hangar.localrun.spool import Spool
from hangar.paths import hangar_paths


@click.group("local-run", cls=HangarGroup)
def local_run_group() -> None:
    """Local runs (`hangar run`) on this machine."""


local_run_group.add_command(provider_group)


@local_run_group.command("sync-pending")
def sync_pending_command() -> None:
    """Send run messages, usage and final statuses kept in the spool while the hub was away."""
    spool = Spool(hangar_paths().spool_dir)
    if spool.count() == 0:
        click.echo("Nothing to sync.")
        return
    api = HttpRunApi.from_environment()
    try:
        result = spool.sync(api)
    finally:
        api.close()
    message = f"Synced {result.synced} items; {result.remaining} remain queued."
    if result.rejected:
        message += f" {result.rejected} were refused by the hub (kept as *.rejected)."
    click.echo(message)
    if result.remaining:
        raise SystemExit(1)
