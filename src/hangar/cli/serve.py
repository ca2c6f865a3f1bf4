"""``hangar serve``: the hub (HTTP API + web UI) with this device's executor in process."""

from __future__ import annotations

import logging
import os
import signal
import sys
from types import FrameType

import click

from hangar import __version__
from hangar.cli.hangar_click import HangarCommand
from hangar.composition import LocalHangar
from hangar.hub.demo import (
    demo_issues_file,
    prepare_demo_environment,
    remove_demo_environment,
    seed_demo_issues,
)
from hangar.hub.http_policy import HostPolicy, parse_host_list
from hangar.hub.server import HubServer, check_bind_address
from hangar.hub.server_log import open_server_log
from hangar.settings import load_settings
from hangar.token_file import load_or_create_token

log = logging.getLogger("hangar.hub")


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


@click.command("serve", cls=HangarCommand)
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
@click.option(
    "--no-executor",
    is_flag=True,
    help="Serve only remote devices, not this machine's sessions (a team hub's replicas).",
)
def serve_command(
    host: str | None, port: int | None, demo: bool, allow_remote: bool, no_executor: bool
) -> None:
    """Run the hub: HTTP API under /api, the web UI, live updates; Ctrl-C stops."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    stop = StopSignals()
    stop.install()
    demo_root = None
    if demo:
        demo_root = prepare_demo_environment(os.environ)
        click.echo(f"demo: serving a copy of the sample sessions in {demo_root}")
    try:
        _serve(host, port, demo, allow_remote, stop, no_executor)
    finally:
        if demo_root is not None:
            remove_demo_environment(demo_root)
    if stop.signum is not None:
        sys.exit(128 + stop.signum)


class StopSignals:
    """SIGTERM and SIGHUP stop ``hangar serve`` like Ctrl-C: the server shuts down gracefully
    and every ``finally`` runs (workers stop, databases close, the demo copy is removed); the
    process then exits ``128 + signal``. The handler only asks the server to stop (never raises
    into whatever the main thread is doing); uvicorn, which handles SIGTERM itself while it
    serves, raises it again once it has shut down, and that lands here too."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.server: HubServer | None = None

    def install(self) -> None:
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, self._on_signal)

    def attach(self, server: HubServer) -> None:
        self.server = server
        if self.signum is not None:
            server.request_stop()

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        self.signum = signum
        if self.server is not None:
            self.server.request_stop()


def _serve(
    host: str | None,
    port: int | None,
    demo: bool,
    allow_remote: bool,
    stop: StopSignals,
    no_executor: bool = False,
) -> None:
    settings = load_settings()
    root = logging.getLogger()
    root.setLevel(str(settings.log_level).upper())
    logging.getLogger("alembic").setLevel(logging.WARNING)
    host = host or str(settings.host)
    warning = check_bind_address(host, allow_remote)
    local = LocalHangar.open(serve_executor=False if no_executor else None)
    log_file = open_server_log(settings.paths.logs_dir)
    root.addHandler(log_file)
    try:
        token = load_or_create_token(settings.paths.token_file)
        hosts = HostPolicy.for_bind(host, parse_host_list(str(settings.allowed_hosts)))
        app = local.create_app(token.token, hosts=hosts, bind_host=host)
        if demo:
            seed_demo_issues(app.state.hub, demo_issues_file())
        server = local.server(app, host, settings.port if port is None else port, token)
        if warning:
            click.echo(warning, err=True)
        server.on_started = lambda s: _started(s, demo)
        stop.attach(server)
        try:
            server.serve()
        finally:
            log.info("hangar serve on %s stopped", server.url)
    finally:
        local.close()
        root.removeHandler(log_file)
        log_file.close()


def _started(server: HubServer, demo: bool) -> None:
    log.info("hangar serve %s listening on %s (pid %d)", __version__, server.url, os.getpid())
    _announce(server, demo)
