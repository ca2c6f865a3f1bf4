"""Connecting out to the hub, and staying connected.

:class:`ExecutorClient` opens a WebSocket to ``<hub>/executor/connect`` with the device token
(``Authorization: Bearer …``), says ``hello`` (device id, name, transfer host, the methods it
serves), waits for ``welcome``, then serves calls (:class:`~.session.DeviceSession`) until the
connection drops. It reconnects with exponential backoff and jitter (0.5 s doubling up to
30 s, each delay drawn from its upper half), trying the given hub URLs in turn; a connection
that lasted resets the backoff. A refusal reconnecting cannot change — an unknown or revoked
token, a token bound to another machine, an unsupported protocol — ends the client with
:class:`HubRefused` naming the hub's reason.

The executor never polls the hub or pushes its task list (RW-042): it answers calls, and sends
events only to say that something changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from hangar.errors import HangarError, UsageError
from hangar.executor.remote.session import DeviceSession, RpcHandler
from hangar.protocol import frames as f

log = logging.getLogger("hangar.executor.remote")

EXECUTOR_PATH = "/executor/connect"
HELLO_TIMEOUT = 10.0
STABLE_AFTER = 30.0
"""A connection that lasted this long resets the backoff."""


@dataclass(eq=False)
class HubRefused(HangarError):
    """The hub refused this device for a reason reconnecting cannot change."""

    close_code: int = 0
    reason: str = ""
    code: ClassVar[str] = "hub_refused"
    http_status: ClassVar[int] = 403

    def render(self) -> str:
        return f"the hub refused this device ({self.close_code}): {self.reason}"


def websocket_url(hub: str) -> str:
    """``http(s)://host[:port][/prefix]`` (or ``ws(s)://…``) as the executor endpoint's URL."""
    parts = urlsplit(hub.strip())
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}.get(parts.scheme)
    if scheme is None or not parts.netloc:
        raise UsageError(f"not a hub URL: {hub!r} (expected http://host:port or https://…)")
    path = parts.path.rstrip("/")
    if not path.endswith(EXECUTOR_PATH):
        path += EXECUTOR_PATH
    return urlunsplit((scheme, parts.netloc, path, "", ""))


@dataclass
class Backoff:
    """Exponential delays with jitter: attempt n waits in [d/2, d], d = min(cap, base * 2^n)."""

    base: float = 0.5
    cap: float = 30.0
    attempt: int = 0
    rng: random.Random = field(default_factory=random.Random)

    def next(self) -> float:
        ceiling = min(self.cap, self.base * (2**self.attempt))
        self.attempt += 1
        return float(ceiling / 2 + self.rng.uniform(0, ceiling / 2))

    def reset(self) -> None:
        self.attempt = 0


@dataclass
class ExecutorClient:
    """This device's connection to its hub (see the module docstring)."""

    hubs: Sequence[str]
    token: str
    hello: f.Hello
    handler: RpcHandler
    workers: int = 8
    source_address: str | None = None
    """Local address to connect from (a multi-homed machine; tests use 127.0.0.x)."""
    backoff: Backoff = field(default_factory=Backoff)
    on_change: Callable[[str], None] | None = None
    """Told ``connected <url>`` / ``disconnected <why>`` / ``retrying in <s>``."""
    session: DeviceSession | None = None
    connected_url: str | None = None
    """The executor endpoint of the hub this device is connected to now (``None``: none)."""
    connections: int = 0
    _stop: asyncio.Event | None = None

    def publish(self, name: str, data: dict[str, Any]) -> None:
        """Send an event to the hub if connected (dropped otherwise); any thread."""
        session = self.session
        if session is not None:
            session.publish(name, data)

    def backlog(self) -> int:
        """Bytes of events waiting for the connection (0 while not connected: events are
        then dropped at once, so nothing waits)."""
        session = self.session
        return session.backlog if session is not None else 0

    def stop(self) -> None:
        """Ask :meth:`run` to return (from the loop's thread)."""
        if self._stop is not None:
            self._stop.set()

    async def run(self) -> None:
        """Connect, serve, reconnect, until :meth:`stop`; raises :class:`HubRefused`."""
        urls = [websocket_url(h) for h in self.hubs]
        if not urls:
            raise UsageError("no hub URL: pass --hub URL (or set HANGAR_HUB_URL)")
        self._stop = asyncio.Event()
        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="hangar-rpc")
        turn = 0
        try:
            while not self._stop.is_set():
                url = urls[turn % len(urls)]
                started = time.monotonic()
                why = await self._connect_once(url, pool)
                if time.monotonic() - started >= STABLE_AFTER:
                    self.backoff.reset()
                if self._stop.is_set():
                    break
                turn += 1
                delay = self.backoff.next()
                self._tell(f"disconnected ({why}); retrying in {delay:.1f}s")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), delay)
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    async def _connect_once(self, url: str, pool: ThreadPoolExecutor) -> str:
        headers = {"Authorization": f"Bearer {self.token}"}
        local = (self.source_address, 0) if self.source_address else None
        assert self._stop is not None
        try:
            async with connect(
                url,
                additional_headers=headers,
                max_size=f.MAX_FRAME_BYTES,
                proxy=None,
                open_timeout=HELLO_TIMEOUT,
                ping_interval=10,
                ping_timeout=20,
                close_timeout=5,
                local_addr=local,
            ) as ws:
                welcome = await self._handshake(ws)
                self.connections += 1
                self._tell(f"connected to {url} as {welcome.name or welcome.device_id}")
                session = DeviceSession(ws, self.handler, pool, workers=self.workers)
                self.session = session
                self.connected_url = url
                serving = asyncio.create_task(session.serve())
                stopping = asyncio.create_task(self._stop.wait())
                try:
                    done, _ = await asyncio.wait(
                        {serving, stopping}, return_when=asyncio.FIRST_COMPLETED
                    )
                    if serving in done:
                        serving.result()
                    return "stopped"
                finally:
                    self.session = None
                    self.connected_url = None
                    for task in (serving, stopping):
                        task.cancel()
        except ConnectionClosed as exc:
            return self._closed(exc)
        except f.MalformedFrame as exc:
            return str(exc)
        except (OSError, InvalidHandshake, TimeoutError) as exc:
            return f"{type(exc).__name__}: {exc}"[:200]
        except InvalidURI as exc:
            raise UsageError(str(exc)) from None

    async def _handshake(self, ws: ClientConnection) -> f.Welcome:
        await ws.send(f.encode(self.hello))
        frame = await asyncio.wait_for(ws.recv(), HELLO_TIMEOUT)
        header, _ = f.decode(frame)
        if not isinstance(header, f.Welcome):
            raise f.MalformedFrame(problem=f"expected welcome, got {type(header).__name__}")
        return header

    def _closed(self, exc: ConnectionClosed) -> str:
        code = exc.rcvd.code if exc.rcvd is not None else 1006
        reason = exc.rcvd.reason if exc.rcvd is not None else "connection lost"
        if code in f.FATAL_CLOSE_CODES:
            raise HubRefused(close_code=code, reason=reason) from None
        return f"closed {code}: {reason or 'no reason'}"

    def _tell(self, text: str) -> None:
        log.info("%s", text)
        if self.on_change is not None:
            self.on_change(text)
