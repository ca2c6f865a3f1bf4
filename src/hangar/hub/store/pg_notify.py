"""PostgreSQL ``LISTEN``/``NOTIFY``: how replicas of one hub hear about each other's writes.

:class:`Listener` keeps one autocommit connection that ``LISTEN``\\ s on a few channels and
hands each notification's payload to that channel's callback, on its own thread. When the
connection breaks (PostgreSQL restarted, a network cut) it reconnects with backoff and calls
``on_connect`` again, so callers can catch up on what they may have missed: notifications
are hints, the tables are the record. :class:`Notifier` sends notifications from a queue on
its own thread, so a publisher (a route, the event loop) never waits for the database.
Payloads are at most :data:`MAX_PAYLOAD` bytes (PostgreSQL's limit is 8000).
"""

from __future__ import annotations

import logging
import queue
import random
import threading
from collections.abc import Callable, Mapping

import sqlalchemy as sa
from sqlalchemy.engine import Engine

log = logging.getLogger("hangar.hub.pg")

MAX_PAYLOAD = 7900


def is_postgresql(engine: Engine) -> bool:
    return engine.dialect.name == "postgresql"


def conninfo(engine: Engine) -> str:
    """The engine's URL as a libpq connection string (without the SQLAlchemy driver)."""
    return engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


class Listener(threading.Thread):
    """See the module docstring."""

    def __init__(
        self,
        engine: Engine,
        channels: Mapping[str, Callable[[str], None]],
        on_connect: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(name="hangar-pg-listener", daemon=True)
        self.engine = engine
        self.channels = dict(channels)
        self.on_connect = on_connect
        self._stopping = threading.Event()
        self.connected = threading.Event()
        self.connects = 0

    def stop(self) -> None:
        self._stopping.set()
        self.join(timeout=5)

    def run(self) -> None:
        import psycopg
        from psycopg import sql

        delay = 0.2
        while not self._stopping.is_set():
            try:
                with psycopg.connect(conninfo(self.engine), autocommit=True) as conn:
                    for channel in self.channels:
                        conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
                    self.connects += 1
                    self.connected.set()
                    if self.connects > 1:
                        log.info("PostgreSQL listener connected again")
                    delay = 0.2
                    if self.on_connect is not None:
                        self._safely(self.on_connect)
                    while not self._stopping.is_set():
                        for note in conn.notifies(timeout=0.5):
                            self._dispatch(note.channel, note.payload)
            except psycopg.Error as exc:
                self.connected.clear()
                log.warning("lost the PostgreSQL listener connection (%s); reconnecting", exc)
                self._stopping.wait(delay + random.uniform(0, delay))
                delay = min(delay * 2, 5.0)

    def _dispatch(self, channel: str, payload: str) -> None:
        callback = self.channels.get(channel)
        if callback is None:
            return
        try:
            callback(payload)
        except Exception:
            log.exception("a notification callback failed")

    @staticmethod
    def _safely(callback: Callable[[], None]) -> None:
        try:
            callback()
        except Exception:
            log.exception("a notification callback failed")


class Notifier(threading.Thread):
    """Sends ``(channel, payload)`` notifications in order, in small batches."""

    def __init__(self, engine: Engine, capacity: int = 10_000) -> None:
        super().__init__(name="hangar-pg-notifier", daemon=True)
        self.engine = engine
        self._queue: queue.Queue[tuple[str, str] | None] = queue.Queue(capacity)
        self.sent = 0
        self.dropped = 0

    def send(self, channel: str, payload: str) -> None:
        if len(payload.encode()) > MAX_PAYLOAD:
            log.warning("notification on %s dropped: %d bytes", channel, len(payload))
            self.dropped += 1
            return
        try:
            self._queue.put_nowait((channel, payload))
        except queue.Full:
            self.dropped += 1

    def stop(self) -> None:
        self._queue.put(None)
        self.join(timeout=5)

    def run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            batch = [item]
            while len(batch) < 100:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._deliver(batch)
                    return
                batch.append(more)
            self._deliver(batch)

    def _deliver(self, batch: list[tuple[str, str]]) -> None:
        for attempt in range(3):
            try:
                with self.engine.begin() as conn:
                    for channel, payload in batch:
                        conn.execute(
                            sa.text("SELECT pg_notify(:channel, :payload)"),
                            {"channel": channel, "payload": payload},
                        )
                self.sent += len(batch)
                return
            except sa.exc.SQLAlchemyError as exc:
                log.warning("notifications not sent (attempt %d): %s", attempt + 1, exc)
                threading.Event().wait(0.5 * (attempt + 1))
        self.dropped += len(batch)
