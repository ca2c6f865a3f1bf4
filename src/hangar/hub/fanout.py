"""One call to each of several devices at once, each bounded by a timeout.

``GET /api/runtime-work``, search and usage ask every online and busy device (RW-026, RW-049).
:func:`fan_out` starts every call first, then collects the answers, waiting at most
``timeout`` seconds in all: a device that fails or has not answered by then contributes a
:class:`HangarError` (``device_timeout`` for the late ones) instead of a result, and never
holds up the others.

A call to a WebSocket device is started without a thread of its own (:func:`begin` uses the
link's ``begin``: the frame goes out, the answer resolves a future), so fifty devices cost
fifty frames, not fifty blocked threads; any other link runs its ``call`` on a shared pool
(or inline when it is the only device asked).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Protocol, TypeVar

from hangar.errors import HangarError
from hangar.hub.executor_link import DeviceTimeout, ExecutorLink, RpcFailed

T = TypeVar("T")

_POOL = ThreadPoolExecutor(max_workers=64, thread_name_prefix="hangar-fanout")
SLACK = 1.0
"""Seconds beyond the per-device timeout before a device counts as late (a WebSocket link
times out on its own first, with the method's name in its error)."""


class Pending(Protocol):
    """A call under way."""

    def spawn(self) -> None:
        """Start it now if it has not started (it may also start on :meth:`wait`)."""
        ...

    def wait(self, timeout: float) -> Any:
        """Its answer, waiting at most ``timeout`` seconds (raises ``TimeoutError``) or
        its :class:`HangarError`."""
        ...


class _Deferred:
    """A blocking ``call`` run on the pool once spawned, else inline when waited for."""

    def __init__(self, call: Callable[[], Any]) -> None:
        self.call = call
        self.future: Future[Any] | None = None

    def spawn(self) -> None:
        if self.future is None:
            self.future = _POOL.submit(self.call)

    def wait(self, timeout: float) -> Any:
        if self.future is None:
            return self.call()
        try:
            return self.future.result(timeout)
        except FutureTimeout:
            raise TimeoutError from None


class _Failed:
    def __init__(self, error: HangarError) -> None:
        self.error = error

    def spawn(self) -> None:
        pass

    def wait(self, timeout: float) -> Any:
        raise self.error


class _Mapped:
    def __init__(self, pending: Pending, convert: Callable[[Any], Any]) -> None:
        self.pending = pending
        self.convert = convert

    def spawn(self) -> None:
        self.pending.spawn()

    def wait(self, timeout: float) -> Any:
        return self.convert(self.pending.wait(timeout))


def mapped(pending: Pending, convert: Callable[[Any], Any]) -> Pending:
    """``pending`` whose answer is passed through ``convert`` when waited for."""
    return _Mapped(pending, convert)


def begin(link: ExecutorLink, method: str, request: Any) -> Pending:
    """Start ``method`` on ``link``: at once for a link that can (``link.begin``), else as a
    deferred blocking call."""
    starter = getattr(link, "begin", None)
    if starter is not None:
        try:
            pending: Pending = starter(method, request)
        except HangarError as exc:
            return _Failed(exc)
        return pending
    return _Deferred(lambda: link.call(method, request))


def fan_out(
    items: Sequence[T],
    start: Callable[[T], Pending],
    timeout: float,
    device_of: Callable[[T], str] = str,
    method: str = "",
) -> list[Any]:
    """The answer (or :class:`HangarError`) of ``start(item)`` for every item, in order."""
    pendings: list[Pending] = []
    for item in items:
        try:
            pendings.append(start(item))
        except HangarError as exc:
            pendings.append(_Failed(exc))
    if len({device_of(item) for item in items}) > 1:
        for pending in pendings:
            pending.spawn()
    deadline = time.monotonic() + timeout + SLACK
    out: list[Any] = []
    for item, pending in zip(items, pendings, strict=True):
        try:
            out.append(pending.wait(max(0.0, deadline - time.monotonic())))
        except HangarError as exc:
            out.append(exc)
        except TimeoutError:
            out.append(DeviceTimeout(device_id=device_of(item), method=method, seconds=timeout))
        except Exception as exc:
            out.append(RpcFailed(method=method, message=f"{type(exc).__name__}: {exc}"))
    return out
