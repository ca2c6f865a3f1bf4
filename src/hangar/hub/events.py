"""Live events for ``GET /api/events`` (Server-Sent Events).

Publishers (routes, the session watcher, from any thread) call :meth:`EventBus.publish`; every
connected page holds one subscriber queue per event loop. Slow subscribers lose their oldest
events rather than growing without bound: an event only tells a page *what* to refresh.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("hangar.hub.events")
QUEUE_SIZE = 4096
"""Events a page may lag behind before its oldest are dropped (a long reply streams many
small deltas; the transcript is the record, so a dropped delta costs only live text)."""


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
        self.deliver(event, data)

    def deliver(self, event: str, data: dict[str, Any]) -> int:
        """:meth:`publish`, returning how many subscribers it reached."""
        item = (next(self._ids), event, data)
        with self._lock:
            targets = list(self._subscribers)
        reached = 0
        for sub in targets:
            try:
                sub.loop.call_soon_threadsafe(_offer, sub.queue, item)
                reached += 1
            except RuntimeError:  # the subscriber's loop has closed
                self._drop(sub)
        return reached

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


TERMINAL_TYPES = frozenset({"response.completed", "response.failed", "response.incomplete"})


def turn_relay(bus: EventBus) -> Callable[[str, dict[str, Any]], int]:
    """The sink for an executor's turn events: publishes them and logs, for each terminal
    event, how many pages it reached — identity, type and block count only (RW-117/118)."""

    def relay(event: str, data: dict[str, Any]) -> int:
        reached = bus.deliver(event, data)
        if data.get("type") in TERMINAL_TYPES:
            log.info(
                "turn %s matched %d subscribers: device=%s task=%s subtask=%s blocks=%s",
                data.get("type"),
                reached,
                data.get("deviceId"),
                data.get("taskId"),
                data.get("subtaskId"),
                data.get("blockCount"),
            )
        return reached

    return relay


def _offer(queue: asyncio.Queue[tuple[int, str, dict[str, Any]]], item: Any) -> None:
    if queue.full():
        queue.get_nowait()
    queue.put_nowait(item)
