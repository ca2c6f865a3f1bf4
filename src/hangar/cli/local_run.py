"""``hangar local-run …``: maintenance of local runs on this machine."""

from __future__ import annotations

import click

from hangar.cli.hangar_click import HangarGroup
from hangar.cli.local_run_provider import provider_group
from hangar.localrun.discussion.hub_api import HttpDiscussionApi, TurnPoster
from hangar.localrun.hub_api import HttpRunApi
from hangar.localrun.spool import Spool
from hangar.paths import hangar_paths


@click.group("local-run", cls=HangarGroup)
def local_run_group() -> None:
    """Local runs (`hangar run`) on this machine."""


local_run_group.add_command(provider_group)


@local_run_group.command("sync-pending")
def sync_pending_command() -> None:
    """Send what the spool kept while the hub was away: run messages, usage, final statuses,
    and the turns of discussions (`hangar discuss`)."""
    paths = hangar_paths()
    runs, turns = Spool(paths.spool_dir), Spool(paths.discussion_spool_dir)
    if runs.count() == 0 and turns.count() == 0:
        click.echo("Nothing to sync.")
        return
    api = HttpRunApi.from_environment()
    try:
        result = runs.sync(api)
        talk = turns.sync(TurnPoster(HttpDiscussionApi(api.client)))
    finally:
        api.close()
    synced, remaining = result.synced + talk.synced, result.remaining + talk.remaining
    rejected = result.rejected + talk.rejected
    message = f"Synced {synced} items; {remaining} remain queued."
    if rejected:
        message += f" {rejected} were refused by the hub (kept as *.rejected)."
    click.echo(message)
    if remaining:
        raise SystemExit(1)
