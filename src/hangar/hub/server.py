"""Running the hub: bind, build the app over this device's state and executor, serve.

:class:`HubServer` owns the listening socket (so port 0 works and the URL is known before the
first request), the uvicorn server, and the background workers that keep the runtime view
live (the session watcher and indexing worker of :mod:`hangar.executor.watcher`).
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import uvicorn

from hangar.errors import UsageError
from hangar.hub.app import create_app
from hangar.hub.auth import TokenSource, load_or_create_token
from hangar.hub.executor_link import ExecutorLink
from hangar.hub.local_executor import executor_of, local_executor_link
from hangar.hub.outbox import start_local_run_workers
from hangar.state import HangarState

log = logging.getLogger("hangar.hub")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind_address(host: str, allow_remote: bool) -> str | None:
    """``None`` for a loopback host; a warning for an allowed remote one; else an error."""
    if is_loopback(host):
        return None
    if not allow_remote:
        raise UsageError(
            f"refusing to listen on {host}, which is reachable from other machines; "
            "pass --allow-remote if you mean it (anyone who can reach it needs only the token)"
        )
    return (
        f"warning: listening on {host}: other machines can reach this hub; "
        "keep the token secret and prefer a TLS proxy in front of it"
    )


def bind_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP matters: asyncio sets TCP_NODELAY on accepted sockets only when their
    # proto says TCP; without it every response waits ~40 ms for the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def url_for(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


@dataclass
class HubServer:
    """A hub ready to serve on a bound socket."""

    state: HangarState
    host: str
    port: int
    token: TokenSource
    executor: ExecutorLink | None = None
    on_started: Callable[[HubServer], None] | None = None
    workers: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sock = bind_socket(self.host, self.port)
        self.port = int(self.sock.getsockname()[1])
        if self.executor is None:
            self.executor = local_executor_link(self.state)
        self.app = create_app(self.state, self.executor, token=self.token.token)

    @property
    def url(self) -> str:
        return url_for(self.host, self.port)

    def publish(self, event: str, data: dict[str, Any]) -> None:
        self.app.state.hub.events.publish(event, data)

    def serve(self) -> None:
        """Serve until interrupted (SIGINT/SIGTERM); workers start after the socket is live."""
        from hangar.executor.watcher import start_live_workers

        config = uvicorn.Config(
            self.app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=3,
        )
        server = uvicorn.Server(config)
        link = self.executor
        assert link is not None
        self.workers = start_live_workers(self.state, executor_of(link), link, self.publish)
        self.workers += start_local_run_workers(self.app.state.hub)
        if self.on_started:
            self.on_started(self)
        try:
            server.run(sockets=[self.sock])
        finally:
            for worker in self.workers:
                worker.stop()
            close = getattr(self.executor, "close", None)
            if callable(close):
                close()
            self.sock.close()


def prepare(
    state: HangarState, host: str, port: int, allow_remote: bool
) -> tuple[HubServer, str | None]:
    """Check the address, load the token and bind; returns the server and any warning."""
    warning = check_bind_address(host, allow_remote)
    token = load_or_create_token(state.settings.paths.token_file)
    return HubServer(state=state, host=host, port=port, token=token), warning
