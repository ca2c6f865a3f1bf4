"""An :class:`~hangar.hub.executor_link.ExecutorLink` over one device's WebSocket.

``call(method, request)`` runs on a route's worker thread: it encodes the request once
(:mod:`hangar.protocol.methods` says its type), sends a ``call`` frame through the
connection's event loop, and waits — at most the method's timeout — for the answer, which it
decodes once into the method's response type. Many calls share the connection; their answers
come back in any order, chunked when large (:class:`~hangar.protocol.frames.Reassembly`).
When the connection drops, every waiting call fails at once with ``device_unavailable``; a
call is never sent again on its own (a reconnect starts with nothing pending).
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

import msgspec

from hangar.errors import HangarError, UsageError
from hangar.hub.executor_link import (
    DeviceTimeout,
    DeviceUnavailable,
    RpcFailed,
    RpcNotSupported,
    remote_error,
)
from hangar.protocol import frames as f
from hangar.protocol import methods as m
from hangar.protocol.methods import METHODS

Send = Callable[[bytes], Awaitable[None]]
Close = Callable[[int, str], Awaitable[None]]

FANOUT_METHODS = frozenset({m.TASKS_LIST.name, m.TASKS_SEARCH.name})


@dataclass(frozen=True)
class Timeouts:
    """Seconds the hub waits for a device: list and search fan out to every device and wait
    less (``fanout``), so one slow device never holds up the page."""

    default: float = 60.0
    fanout: float = 10.0

    def of(self, method: str) -> float:
        return self.fanout if method in FANOUT_METHODS else self.default


def decode_answer(method: str, raw: bytes) -> Any:
    """The device's JSON answer as ``method``'s response type."""
    try:
        return msgspec.json.decode(raw, type=METHODS[method].response)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise RpcFailed(method=method, message=f"the device answered {method} with {exc}") from None


class WebSocketLink:
    """Calls to one connected device (see the module docstring)."""

    def __init__(
        self,
        device_id: str,
        loop: asyncio.AbstractEventLoop,
        send: Send,
        close: Close,
        *,
        timeouts: Timeouts,
        supported: frozenset[str] | None = None,
    ) -> None:
        self.device_id = device_id
        self.loop = loop
        self._send = send
        self._close = close
        self.timeouts = timeouts
        self.supported = supported
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[str, Future[bytes]]] = {}
        self._lock = threading.Lock()
        self._chunks = f.Reassembly()
        self.closed: str | None = None
        """Why the connection ended, once it has."""

    # -- ExecutorLink -------------------------------------------------------------------
    def call(self, method: str, request: Any) -> Any:
        return self.begin(method, request).wait(self.timeouts.of(method))

    def begin(self, method: str, request: Any) -> PendingCall:
        """Send the call now; the answer is collected with :meth:`PendingCall.wait` (no
        thread waits meanwhile: the fan-out starts every device's call this way)."""
        if method not in METHODS or (self.supported is not None and method not in self.supported):
            raise RpcNotSupported(method=method)
        if self.closed is not None:
            raise DeviceUnavailable(device_id=self.device_id, message=self.closed)
        timeout = self.timeouts.of(method)
        call_id = next(self._ids)
        frame = f.encode(f.Call(id=call_id, method=method, timeout=timeout), _encode(request))
        if len(frame) > f.MAX_FRAME_BYTES:
            raise UsageError(f"{method} request is larger than {f.MAX_FRAME_BYTES} bytes")
        future: Future[bytes] = Future()
        with self._lock:
            self._pending[call_id] = (method, future)
        self._submit(self._send(frame), future)
        return PendingCall(self, call_id, method, future, time.monotonic() + timeout, timeout)

    def _gave_up(self, call_id: int) -> None:
        self._forget(call_id)
        self._submit(self._send(f.encode(f.Cancel(id=call_id))), None)

    def close(self) -> None:
        self.fail_all("the hub closed the connection")
        self.submit_close(1001, "hub shutting down")

    def submit_close(self, code: int, reason: str) -> None:
        """Close the connection with ``code`` and ``reason`` (from any thread)."""
        self._submit(self._close(code, reason), None)

    # -- from the connection's loop -------------------------------------------------------
    def dispatch(self, header: f.Result | f.Error, body: bytes) -> None:
        """Route an answer frame to its waiting call (unknown ids are late answers: ignored)."""
        with self._lock:
            waiting = header.id in self._pending
        if not waiting:  # a late answer to a call that timed out
            self._chunks.drop(header.id)
            return
        if isinstance(header, f.Result):
            try:
                whole = self._chunks.add(header.id, body, header.more)
            except f.MalformedFrame as exc:
                self._fail(header.id, RpcFailed(message=str(exc)))
                return
            if whole is not None:
                entry = self._forget(header.id)
                if entry is not None and not entry[1].done():
                    entry[1].set_result(whole)
            return
        entry = self._forget(header.id)
        if entry is not None and not entry[1].done():
            error = remote_error(
                entry[0], header.code, header.message, header.status, header.details
            )
            entry[1].set_exception(error)

    def fail_all(self, reason: str) -> None:
        """The connection ended: every waiting call fails with ``device_unavailable``."""
        self.closed = self.closed or reason
        with self._lock:
            pending, self._pending = self._pending, {}
        for _, future in pending.values():
            if not future.done():
                future.set_exception(DeviceUnavailable(device_id=self.device_id, message=reason))

    def pending(self) -> int:
        with self._lock:
            return len(self._pending)

    # -- helpers --------------------------------------------------------------------------
    def _fail(self, call_id: int, error: HangarError) -> None:
        entry = self._forget(call_id)
        if entry is not None and not entry[1].done():
            entry[1].set_exception(error)

    def _forget(self, call_id: int) -> tuple[str, Future[bytes]] | None:
        with self._lock:
            return self._pending.pop(call_id, None)

    def _submit(self, coroutine: Awaitable[None], future: Future[bytes] | None) -> None:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            raise RuntimeError("WebSocketLink.call must not run on the connection's loop")

        async def guarded() -> None:
            try:
                await coroutine
            except Exception as exc:
                if future is not None and not future.done():
                    future.set_exception(
                        DeviceUnavailable(device_id=self.device_id, message=f"send failed: {exc}")
                    )

        try:
            asyncio.run_coroutine_threadsafe(guarded(), self.loop)
        except RuntimeError:  # the loop has stopped
            if future is not None and not future.done():
                future.set_exception(DeviceUnavailable(device_id=self.device_id))


def _encode(request: Any) -> bytes:
    return msgspec.json.encode(request)


class PendingCall:
    """A call sent on a :class:`WebSocketLink`, its answer still to come."""

    def __init__(
        self,
        link: WebSocketLink,
        call_id: int,
        method: str,
        future: Future[bytes],
        deadline: float,
        timeout: float,
    ) -> None:
        self.link, self.call_id, self.method = link, call_id, method
        self.future, self.deadline, self.timeout = future, deadline, timeout

    def spawn(self) -> None:
        """Already under way."""

    def wait(self, timeout: float) -> Any:
        """The decoded answer; :class:`DeviceTimeout` once the method's own timeout passed,
        ``TimeoutError`` when only the caller's ``timeout`` did."""
        own = self.deadline - time.monotonic()
        try:
            raw = self.future.result(max(0.0, min(timeout, own)))
        except FutureTimeout:
            self.link._gave_up(self.call_id)
            if own <= timeout:
                raise DeviceTimeout(
                    device_id=self.link.device_id, method=self.method, seconds=self.timeout
                ) from None
            raise TimeoutError from None
        return decode_answer(self.method, raw)
