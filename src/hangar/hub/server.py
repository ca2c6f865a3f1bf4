"""Running the hub: bind, serve an app, start and stop its background workers.

:class:`HubServer` owns the listening socket (so port 0 works and the URL is known before the
first request) and the uvicorn server. What it serves and which workers run beside it come
from the caller (the composition root, :mod:`hangar.composition`).
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import uvicorn
from fastapi import FastAPI

from hangar.errors import UsageError
from hangar.protocol.frames import MAX_FRAME_BYTES
from hangar.token_file import TokenSource

log = logging.getLogger("hangar.hub")


class Worker(Protocol):
    def stop(self) -> None: ...


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
    """An app ready to serve on a bound socket."""

    app: FastAPI
    host: str
    port: int
    token: TokenSource
    start_workers: Callable[[HubServer], Sequence[Worker]] | None = None
    """Called once the socket is live; the workers it returns are stopped on shutdown."""
    on_started: Callable[[HubServer], None] | None = None
    on_stopped: Callable[[], None] | None = None
    workers: list[Worker] = field(default_factory=list)
    forwarded_allow_ips: str = "127.0.0.1"
    """Proxies whose ``X-Forwarded-For`` names the client (a device's address)."""
    _uvicorn: uvicorn.Server | None = field(default=None, init=False, repr=False)
    _stop_requested: bool = field(default=False, init=False, repr=False)

    def __post_init__(self) -> None:
        self.sock = bind_socket(self.host, self.port)
        self.port = int(self.sock.getsockname()[1])

    def request_stop(self) -> None:
        """Ask :meth:`serve` to shut down gracefully, as Ctrl-C does; safe to call from a
        signal handler at any moment (before serving, it makes :meth:`serve` return at once).
        It only sets flags: raising from a signal handler could interrupt the main thread
        inside an import and leave the import lock held for every other thread."""
        self._stop_requested = True
        if self._uvicorn is not None:
            self._uvicorn.should_exit = True

    def stop(self) -> None:
        """Ask a running :meth:`serve` (e.g. on another thread) to shut down."""
        self.request_stop()

    @property
    def url(self) -> str:
        return url_for(self.host, self.port)

    def publish(self, event: str, data: dict[str, Any]) -> None:
        self.app.state.hub.events.publish(event, data)

    def config(self) -> uvicorn.Config:
        """The uvicorn configuration :meth:`serve` runs."""
        return uvicorn.Config(
            self.app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            http="httptools",
            timeout_graceful_shutdown=3,
            # A remote executor's frames stay below 1 MiB (large answers are chunked); a
            # bigger one closes that connection with 1009, others are unaffected.
            ws_max_size=MAX_FRAME_BYTES,
            ws_ping_interval=10,
            ws_ping_timeout=20,
            proxy_headers=True,
            forwarded_allow_ips=self.forwarded_allow_ips,
        )

    def serve(self) -> None:
        """Serve until interrupted (SIGINT/SIGTERM, :meth:`request_stop` or :meth:`stop`);
        workers start after the socket is live."""
        server = self._uvicorn = uvicorn.Server(self.config())
        if self._stop_requested:
            self.sock.close()
            return
        try:
            if self.start_workers is not None:
                self.workers = list(self.start_workers(self))
            if self.on_started:
                self.on_started(self)
            server.should_exit = self._stop_requested  # a stop asked for while starting
            server.run(sockets=[self.sock])
        finally:
            for worker in self.workers:
                worker.stop()
            if self.on_stopped is not None:
                self.on_stopped()
            self.sock.close()
