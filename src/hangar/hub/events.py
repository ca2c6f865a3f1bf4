"""Live events for ``GET /api/events`` (Server-Sent Events).

Publishers (routes, the session watcher, from any thread) call :meth:`EventBus.publish`; every
connected page holds one subscriber queue per event loop. Slow subscribers lose their oldest
events rather than growing without bound: an event only tells a page *what* to refresh.

Several replicas of one hub share their events through the database: a ``relay`` (set by the
composition root on PostgreSQL, :mod:`hangar.hub.devices.service`) receives every event
published here, and events from other replicas come back in through :meth:`publish_local`,
which does not relay them again. ``listeners`` are in-process callbacks that see every event,
local or relayed (e.g. a revoked device's connection closes on the replica holding it).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

QUEUE_SIZE = 256
Relay = Callable[[str, dict[str, Any]], None]


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
        self._listeners: list[Relay] = []

    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subscribers)

    relay: Relay | None = None
    """Also given every event published here (to other replicas)."""

    def add_listener(self, listener: Relay) -> None:
        """Call ``listener(event, data)`` for every event, on the publisher's thread."""
        with self._lock:
            self._listeners = [*self._listeners, listener]

    def publish(self, event: str, data: dict[str, Any]) -> None:
        """Send ``event`` to every subscriber (and the relay); callable from any thread."""
        self.publish_local(event, data)
        relay = self.relay
        if relay is not None:
            relay(event, data)

    def publish_local(self, event: str, data: dict[str, Any]) -> None:
        """Send ``event`` to this process's subscribers and listeners only."""
        for listener in self._listeners:
            listener(event, data)
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
