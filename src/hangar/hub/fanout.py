"""One call to each of several devices at once, each bounded by a timeout.

``GET /api/runtime-work``, search and usage ask every online and busy device (RW-026, RW-049).
:func:`fan_out` calls them in parallel on a shared pool and waits at most ``timeout`` seconds:
a device that fails or has not answered by then contributes a :class:`HangarError`
(``device_timeout`` for the late ones) instead of a result, and never holds up the others.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import TypeVar

from hangar.errors import HangarError
from hangar.hub.executor_link import DeviceTimeout, RpcFailed

T = TypeVar("T")
R = TypeVar("R")

_POOL = ThreadPoolExecutor(max_workers=64, thread_name_prefix="hangar-fanout")
SLACK = 1.0
"""Seconds beyond the per-device timeout before a device counts as late (a WebSocket link
times out on its own first, with the method's name in its error)."""


def fan_out(
    items: Sequence[T],
    call: Callable[[T], R],
    timeout: float,
    device_of: Callable[[T], str] = str,
    method: str = "",
) -> list[R | HangarError]:
    """``call(item)`` for every item, in parallel; results in the order of ``items``."""
    if len(items) == 1:  # no thread hop for the single-device hub
        return [_inline(call, items[0])]
    futures: list[Future[R]] = [_POOL.submit(call, item) for item in items]
    wait(futures, timeout + SLACK)
    out: list[R | HangarError] = []
    for item, future in zip(items, futures, strict=True):
        if not future.done():
            future.cancel()
            out.append(DeviceTimeout(device_id=device_of(item), method=method, seconds=timeout))
            continue
        error = future.exception()
        if error is None:
            out.append(future.result())
        elif isinstance(error, HangarError):
            out.append(error)
        else:
            out.append(RpcFailed(method=method, message=f"{type(error).__name__}: {error}"))
    return out


def _inline(call: Callable[[T], R], item: T) -> R | HangarError:
    try:
        return call(item)
    except HangarError as exc:
        return exc
