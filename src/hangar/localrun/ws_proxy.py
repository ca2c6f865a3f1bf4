"""A loopback WebSocket proxy that relays frames both ways and lets a provider watch them.

Contract: every frame a client sends reaches the upstream server and every frame the server
sends reaches the client, in order, unchanged — except that text frames from the client pass
through ``rewrite_client_text`` (which may return a replacement) and text frames in both
directions are shown to ``observe_server_text`` / ``observe_client_text``. The
``Authorization`` header of the client's handshake is forwarded. :meth:`WsProxy.stop` closes
the listener and every live connection.

``gate_client_text`` may hold a client frame back: for most frames it returns ``None`` (sent
at once); for a frame it must hold it returns a blocking function, which runs on a worker
thread while frames from the server keep flowing, and returns the text to send (or ``None``
to drop the frame). Later client frames wait behind a held one, so the order is kept. This is
how a provider pauses a CLI's own action (a plan's "implement") during hangar's card.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Callable

from websockets.asyncio.client import connect
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

TextHook = Callable[[str], None]
Gate = Callable[[str], Callable[[], str | None] | None]


def _identity(text: str) -> str:
    return text


class WsProxy:
    """Listens on 127.0.0.1:``port`` (0 = any free port) and relays to ``upstream``."""

    def __init__(
        self,
        upstream: str,
        *,
        rewrite_client_text: Callable[[str], str] = _identity,
        observe_client_text: TextHook | None = None,
        observe_server_text: TextHook | None = None,
        gate_client_text: Gate | None = None,
    ) -> None:
        self.upstream = upstream
        self._gate = gate_client_text
        self.port = 0
        self._rewrite = rewrite_client_text
        self._observe_client = observe_client_text
        self._observe_server = observe_server_text
        self._loop = asyncio.new_event_loop()
        self._server: Server | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hangar-ws-proxy", daemon=True)
        self._error: BaseException | None = None

    def start(self) -> WsProxy:
        self._thread.start()
        self._ready.wait(10)
        if self._error is not None:
            raise self._error
        return self

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._listen())
        except BaseException as exc:  # surfaced to start()
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        self._loop.run_forever()

    async def _listen(self) -> None:
        self._server = await serve(self._handle, "127.0.0.1", 0, max_size=None, compression=None)
        self.port = int(next(iter(self._server.sockets)).getsockname()[1])

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def _watch(self, hook: TextHook | None, text: str) -> None:
        if hook is None:
            return
        try:
            hook(text)
        except Exception as exc:  # a mapping bug must never break the user's session
            print(f"hangar: ignoring event mapping error: {exc!r}", file=sys.stderr)

    async def _handle(self, client: ServerConnection) -> None:
        headers = {}
        auth = client.request.headers.get("Authorization") if client.request else None
        if auth:
            headers["Authorization"] = auth
        try:
            async with connect(
                self.upstream, additional_headers=headers, max_size=None, compression=None
            ) as upstream:

                async def client_to_server() -> None:
                    async for frame in client:
                        if isinstance(frame, str):
                            try:
                                frame = self._rewrite(frame)
                            except Exception as exc:
                                print(f"hangar: frame left as is: {exc!r}", file=sys.stderr)
                            held = await self._held(frame)
                            if held is None:
                                continue  # the gate dropped it
                            frame = held
                            self._watch(self._observe_client, frame)
                        await upstream.send(frame)

                async def server_to_client() -> None:
                    async for frame in upstream:
                        if isinstance(frame, str):
                            self._watch(self._observe_server, frame)
                        await client.send(frame)

                tasks = [
                    asyncio.ensure_future(client_to_server()),
                    asyncio.ensure_future(server_to_client()),
                ]
                _done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                for task in pending:
                    task.cancel()
                for task in tasks:
                    with contextlib.suppress(asyncio.CancelledError, ConnectionClosed):
                        await task
        except (OSError, ConnectionClosed):
            return

    async def _held(self, frame: str) -> str | None:
        """``frame`` after the gate (see the module docstring)."""
        if self._gate is None:
            return frame
        try:
            wait = self._gate(frame)
        except Exception as exc:  # a gate bug must never stall the user's session
            print(f"hangar: frame passed on: {exc!r}", file=sys.stderr)
            return frame
        if wait is None:
            return frame
        return await asyncio.get_running_loop().run_in_executor(None, wait)

    def stop(self) -> None:
        """Close the listener and all connections; returns when the proxy thread is done."""
        if not self._thread.is_alive():
            return

        async def shutdown() -> None:
            if self._server is not None:
                self._server.close()
                await self._server.wait_closed()

        future = asyncio.run_coroutine_threadsafe(shutdown(), self._loop)
        with contextlib.suppress(Exception):
            future.result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
