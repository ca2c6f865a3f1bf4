"""Live events for ``GET /api/events`` (Server-Sent Events).

Publishers (routes, the session watcher, from any thread) call :meth:`EventBus.publish`; every
connected page holds one subscriber queue per event loop. Slow subscribers lose their oldest
events rather than growing without bound: an event only tells a page *what* to refresh.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

QUEUE_SIZE = 256


@dataclass(eq=False)
class _Subscriber:
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[tuple[int, str, dict[str, Any]]]


class EventBus:
    """A thread-safe fan-out of small JSON events to asyncio subscribers."""

    def __init__(self) -> None:
        self._subscribers: set[_Subscriber] = set()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subscribers)

    def publish(self, event: str, data: dict[str, Any]) -> None:
        """Send ``event`` to every subscriber; callable from any thread."""
        item = (next(self._ids), event, data)
        with self._lock:
            targets = list(self._subscribers)
        for sub in targets:
            try:
                sub.loop.call_soon_threadsafe(_offer, sub.queue, item)
            except RuntimeError:  # the subscriber's loop has closed
                self._drop(sub)

    def _drop(self, sub: _Subscriber) -> None:
        with self._lock:
            self._subscribers.discard(sub)

    async def stream(self, heartbeat: float = 15.0) -> AsyncIterator[str]:
        """SSE text for one client: events as they come, a comment line as a heartbeat."""
        sub = _Subscriber(asyncio.get_running_loop(), asyncio.Queue(QUEUE_SIZE))
        with self._lock:
            self._subscribers.add(sub)
        try:
            yield "retry: 2000\n: connected\n\n"
            while True:
                try:
                    event_id, event, data = await asyncio.wait_for(sub.queue.get(), heartbeat)
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                yield f"id: {event_id}\nevent: {event}\ndata: {json.dumps(data)}\n\n"
        finally:
            self._drop(sub)


def _offer(queue: asyncio.Queue[tuple[int, str, dict[str, Any]]], item: Any) -> None:
    if queue.full():
        queue.get_nowait()
    queue.put_nowait(item)
