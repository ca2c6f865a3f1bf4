"""``hangar serve``: the hub (HTTP API + web UI) with this device's executor in process."""

from __future__ import annotations

import logging
import os
import sys

import click

from hangar.composition import LocalHangar
from hangar.hub.demo import prepare_demo_environment
from hangar.hub.server import HubServer, check_bind_address
from hangar.settings import load_settings
from hangar.token_file import load_or_create_token


def _announce(server: HubServer, demo: bool) -> None:
    click.echo(f"hangar hub listening on {server.url}/", err=False)
    if server.token.origin == "HANGAR_TOKEN":
        click.echo("log in with the token in $HANGAR_TOKEN")
    elif demo:
        click.echo(f"demo token: {server.token.token}")
    else:
        click.echo(
            f"log in with the token in {server.token.origin}  (e.g. `cat {server.token.origin}`)"
        )
    click.echo(f"open {server.url}/login  ·  API docs {server.url}/docs  ·  Ctrl-C stops")
    sys.stdout.flush()


@click.command("serve")
@click.option(
    "--host", default=None, help="Address to listen on (default: setting `host`, 127.0.0.1)."
)
@click.option(
    "--port",
    type=int,
    default=None,
    help="Port (default: setting `port`, 8765; 0 = any free port).",
)
@click.option("--demo", is_flag=True, help="Serve a temporary copy of the bundled sample sessions.")
@click.option(
    "--allow-remote", is_flag=True, help="Allow a non-loopback --host (prints a warning)."
)
def serve_command(host: str | None, port: int | None, demo: bool, allow_remote: bool) -> None:
    """Run the hub: HTTP API under /api, the web UI, live updates; Ctrl-C stops."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    if demo:
        demo_root = prepare_demo_environment(os.environ)
        click.echo(f"demo: serving a copy of the sample sessions in {demo_root}")
    settings = load_settings()
    logging.getLogger().setLevel(str(settings.log_level).upper())
    logging.getLogger("alembic").setLevel(logging.WARNING)
    host = host or str(settings.host)
    warning = check_bind_address(host, allow_remote)
    local = LocalHangar.open()
    try:
        token = load_or_create_token(settings.paths.token_file)
        server = local.server(
            local.create_app(token.token, bind_host=host),
            host,
            settings.port if port is None else port,
            token,
        )
        if warning:
            click.echo(warning, err=True)
        server.on_started = lambda s: _announce(s, demo)
        server.serve()
    finally:
        local.close()
