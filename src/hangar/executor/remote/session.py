"""Serving the hub's calls on one open WebSocket connection.

Contract:

- Each ``call`` runs on a worker thread (the executor is synchronous), so a slow call never
  holds up the others; answers go out as they finish, in as many ``result`` frames as their
  size needs (:func:`~hangar.protocol.frames.result_frames`), interleaved with other answers.
- An answer the hub has given up on (``cancel``, or its timeout passed) is not sent.
- ``status`` goes out when the device becomes busy (every worker occupied) or idle again.
- Events (``runtime.changed``, ``runtime.tasks.updated``, terminal output…) queue for the
  connection, at most :data:`EVENT_QUEUE` of them and :data:`EVENT_BYTES` bytes; a full
  queue drops its oldest event (an event only says what to refresh; a terminal's output
  stays in the executor for a replay). :attr:`DeviceSession.backlog` is what waits, so a
  producer can slow down before anything is dropped (terminals stop reading their PTY).
- A frame from the hub that does not decode closes the connection with 4400 and a reason.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

import msgspec

from hangar.errors import HangarError
from hangar.executor.rpc import MethodNotSupportedError
from hangar.protocol import frames as f
from hangar.protocol.codec import decode_json
from hangar.protocol.methods import METHODS

log = logging.getLogger("hangar.executor.remote")

RpcHandler = Callable[[str, bytes], bytes]
"""``(method, request JSON) -> response JSON``; raises :class:`HangarError` on failure."""
EVENT_QUEUE = 4096
"""Events waiting for the connection (a long reply streams many small deltas)."""
EVENT_BYTES = 8 * 1024 * 1024
"""Bytes of events waiting for the connection (terminal output comes in 64 KiB chunks)."""


class Connection(Protocol):
    """The part of a WebSocket connection a session uses (``websockets``' client)."""

    async def send(self, message: bytes) -> None: ...

    async def recv(self) -> bytes | str: ...

    async def close(self, code: int = 1000, reason: str = "") -> None: ...


class Served(Protocol):
    """What a session serves: the executor's method names and one call."""

    methods: frozenset[str]

    def call(self, method: str, request: Any) -> Any: ...


def executor_handler(executor: Served) -> RpcHandler:
    """An :data:`RpcHandler` over an executor: every method of the table it serves, decoded
    once into its request type and answered with its response type's JSON."""

    def handle(method: str, body: bytes) -> bytes:
        spec = METHODS.get(method)
        if spec is None or method not in executor.methods:
            raise MethodNotSupportedError(method=method)
        request = decode_json(spec.request, body)
        return msgspec.json.encode(executor.call(method, request))

    return handle


class DeviceSession:
    """One connection's calls, status and events (see the module docstring)."""

    def __init__(
        self,
        connection: Connection,
        handler: RpcHandler,
        pool: ThreadPoolExecutor,
        *,
        workers: int,
        chunk: int = f.CHUNK_BYTES,
    ) -> None:
        self.connection = connection
        self.handler = handler
        self.pool = pool
        self.workers = workers
        self.chunk = chunk
        self.running: dict[int, float] = {}
        """Call id -> the monotonic time after which the hub no longer waits."""
        self._cancelled: set[int] = set()
        self._state: f.DeviceState = "online"
        self._events: asyncio.Queue[bytes] = asyncio.Queue(EVENT_QUEUE)
        self._queued = 0
        """Bytes of the frames in ``_events`` (changed on the loop only)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self.loop = asyncio.get_running_loop()
        self.calls = 0

    # -- events from other threads ------------------------------------------------------
    def publish(self, name: str, data: dict[str, Any]) -> None:
        """Queue an event for the hub; callable from any thread."""
        frame = f.encode(f.Event(name=name), msgspec.json.encode(data))
        if len(frame) > f.MAX_FRAME_BYTES:
            log.warning("event %s dropped: %d bytes", name, len(frame))
            return
        self.loop.call_soon_threadsafe(self._offer, frame)

    @property
    def backlog(self) -> int:
        """Bytes of events not yet handed to the connection (readable from any thread)."""
        return self._queued

    def _offer(self, frame: bytes) -> None:
        while self._events.full() or (
            self._queued + len(frame) > EVENT_BYTES and not self._events.empty()
        ):
            self._queued -= len(self._events.get_nowait())
        self._events.put_nowait(frame)
        self._queued += len(frame)

    # -- the connection -------------------------------------------------------------------
    async def serve(self) -> None:
        """Serve until the connection closes (raises ``websockets``' ConnectionClosed)."""
        sender = asyncio.create_task(self._send_events())
        try:
            await self._send_status(force=True)
            while True:
                frame = await self.connection.recv()
                try:
                    header, body = f.decode(frame)
                except f.MalformedFrame as exc:
                    await self.connection.close(f.CLOSE_MALFORMED, str(exc)[:120])
                    raise
                if isinstance(header, f.Call):
                    self._start(header, body)
                elif isinstance(header, f.Cancel):
                    self._cancelled.add(header.id)
                else:
                    log.warning("unexpected %s frame from the hub ignored", type(header).__name__)
        finally:
            sender.cancel()
            for task in list(self._tasks):
                task.cancel()

    def _start(self, call: f.Call, body: bytes) -> None:
        timeout = call.timeout if call.timeout and call.timeout > 0 else 3600.0
        self.running[call.id] = time.monotonic() + timeout
        self.calls += 1
        task = self.loop.create_task(self._run(call, body))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, call: f.Call, body: bytes) -> None:
        await self._send_status()
        try:
            answer = await self.loop.run_in_executor(self.pool, self.handler, call.method, body)
            frames = list(f.result_frames(call.id, answer, self.chunk))
        except HangarError as exc:
            frames = [f.error_frame(call.id, exc)]
        except Exception as exc:
            log.exception("%s failed", call.method)
            frames = [f.error_frame(call.id, exc)]
        deadline = self.running.pop(call.id, 0.0)
        try:
            if call.id in self._cancelled or time.monotonic() > deadline:
                self._cancelled.discard(call.id)
                log.info("%s answered after the hub stopped waiting: dropped", call.method)
            else:
                for frame in frames:
                    await self.connection.send(frame)
            await self._send_status()
        except Exception as exc:  # the connection closed under us; serve() sees it too
            log.debug("answer to %s not sent: %s", call.method, exc)

    async def _send_status(self, force: bool = False) -> None:
        state: f.DeviceState = "busy" if len(self.running) >= self.workers else "online"
        if force or state != self._state:
            self._state = state
            await self.connection.send(f.encode(f.Status(state=state, running=len(self.running))))

    async def _send_events(self) -> None:
        while True:
            frame = await self._events.get()
            try:
                await self.connection.send(frame)
            finally:
                self._queued -= len(frame)
