"""``hangar executor --hub URL``: serve this device's agent sessions to a team hub.

The device token comes from ``hangar device add NAME`` on the hub (or its web UI). Pass it
once with ``--token`` (``--token -`` reads it from stdin, keeping it out of the process list)
or ``HANGAR_DEVICE_TOKEN``; it is kept in ``$HANGAR_HOME/device-token`` (0600) for later runs.
"""

from __future__ import annotations

import logging
import os
import sys

import click

from hangar.executor.remote.credentials import load_device_token, store_device_token
from hangar.executor.remote.run import RemoteOptions, serve_remote
from hangar.executor.service import Executor
from hangar.settings import load_settings


@click.command("executor")
@click.option(
    "--hub",
    "hubs",
    multiple=True,
    help="Hub URL (https://hub.example); repeat for fallbacks tried in turn. "
    "Default: setting `hub_url`.",
)
@click.option(
    "--token", default=None, help="Device token from `hangar device add`; '-' reads stdin."
)
@click.option(
    "--source-address", default=None, help="Local address to connect from (multi-homed machines)."
)
@click.option(
    "--transfer-host",
    default=None,
    help="Address to report as this device's transfer host (default: setting `transfer_host`).",
)
@click.option("--workers", type=click.IntRange(1, 64), default=8, help="Calls served at once.")
def executor_command(
    hubs: tuple[str, ...],
    token: str | None,
    source_address: str | None,
    transfer_host: str | None,
    workers: int,
) -> None:
    """Serve this device's agent sessions to a team hub; reconnects until Ctrl-C."""
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    settings = load_settings()
    path = settings.paths.device_token_file
    given = sys.stdin.readline() if token == "-" else token or os.environ.get("HANGAR_DEVICE_TOKEN")
    secret = store_device_token(path, given) if given else load_device_token(path)
    urls = list(hubs) or ([str(settings.hub_url)] if settings.hub_url else [])

    def tell(text: str) -> None:
        click.echo(f"hangar executor: {text}", err=True)

    executor = Executor.open()
    try:
        tell(f"device {executor.device.name} ({executor.device.device_id})")
        serve_remote(
            executor,
            RemoteOptions(
                hubs=urls,
                token=secret,
                source_address=source_address,
                transfer_host=transfer_host or str(settings.transfer_host) or None,
                workers=workers,
                on_change=tell,
            ),
        )
    finally:
        executor.close()
