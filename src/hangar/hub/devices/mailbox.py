"""Calls to a device whose socket another replica holds, through the database.

A device's WebSocket lands on one replica; a request for it may reach any. The replica that
got the request writes the call into ``device_calls`` (method, encoded request, deadline,
which replica holds the socket) and ``NOTIFY``\\ s ``hangar_calls``; the holder claims the row
(``pending`` → ``running``, once), calls the device over its socket, writes the encoded answer
or error into the row and ``NOTIFY``\\ s ``hangar_answers``; the caller reads and deletes the
row. Nothing else passes between replicas.

- Notifications are only hints: the caller also looks at its row every second, and after a
  listener reconnect the holder serves the pending calls it may have missed.
- When the holder dies mid-call (its heartbeat goes stale) the caller stops waiting with
  ``device_unavailable`` instead of waiting out the deadline; a call is never re-sent.
- A caller that gives up deletes its row; a holder that finds no row does nothing.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from hangar.errors import HangarError
from hangar.hub.devices.registry import now
from hangar.hub.devices.replicas import ReplicaPresence
from hangar.hub.devices.ws_link import Timeouts, decode_answer
from hangar.hub.executor_link import DeviceTimeout, DeviceUnavailable, remote_error
from hangar.hub.store import schema
from hangar.hub.store.pg_notify import Notifier
from hangar.hub.store.writes import transaction
from hangar.protocol.codec import decode_json
from hangar.protocol.methods import METHODS

if TYPE_CHECKING:
    from hangar.hub.devices.directory import DeviceDirectory

log = logging.getLogger("hangar.hub.mailbox")

CALLS = "hangar_calls"
ANSWERS = "hangar_answers"
POLL = 1.0

calls_t = schema.device_calls


class Mailbox:
    """Both sides of routed calls for one replica (see the module docstring)."""

    def __init__(
        self,
        engine: Engine,
        presence: ReplicaPresence,
        directory: DeviceDirectory,
        notifier: Notifier,
        timeouts: Timeouts,
        workers: int = 16,
    ) -> None:
        self.engine = engine
        self.presence = presence
        self.directory = directory
        self.notifier = notifier
        self.timeouts = timeouts
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hangar-routed")
        self._waiting: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self.served = 0

    def link(self, device_id: str, holder: str) -> RoutedLink:
        return RoutedLink(self, device_id, holder)

    # -- caller side ----------------------------------------------------------------------
    def call(self, device_id: str, holder: str, method: str, request: Any) -> Any:
        timeout = self.timeouts.of(method)
        call_id = str(uuid.uuid4())
        event = threading.Event()
        stamp = now()
        with self._lock:
            self._waiting[call_id] = event
        try:
            with transaction(self.engine) as conn:
                conn.execute(
                    sa.insert(calls_t).values(
                        id=call_id,
                        device_id=device_id,
                        holder=holder,
                        caller=self.presence.id,
                        method=method,
                        request=msgspec.json.encode(request),
                        state="pending",
                        created_at=stamp,
                        deadline_at=stamp + timedelta(seconds=timeout),
                    )
                )
            self.notifier.send(CALLS, f"{holder}:{call_id}")
            return self._await(call_id, event, device_id, holder, method, timeout)
        finally:
            with self._lock:
                self._waiting.pop(call_id, None)
            with transaction(self.engine) as conn:
                conn.execute(sa.delete(calls_t).where(calls_t.c.id == call_id))

    def _await(
        self,
        call_id: str,
        event: threading.Event,
        device_id: str,
        holder: str,
        method: str,
        timeout: float,
    ) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            event.wait(min(POLL, max(deadline - time.monotonic(), 0.0)))
            event.clear()
            with self.engine.connect() as conn:
                row = conn.execute(sa.select(calls_t).where(calls_t.c.id == call_id)).first()
            if row is not None and row.state == "done":
                return decode_answer(method, bytes(row.response or b""))
            if row is not None and row.state == "failed":
                error = json.loads(row.error or "{}")
                raise remote_error(
                    method,
                    str(error.get("code", "executor_error")),
                    str(error.get("message", "")),
                    int(error.get("status", 502)),
                    dict(error.get("details") or {}),
                )
            if not self.presence.alive(holder):
                raise DeviceUnavailable(
                    device_id=device_id,
                    message=f"the hub replica holding device {device_id!r}'s connection stopped "
                    "answering; try again once the device has reconnected",
                )
            if time.monotonic() >= deadline:
                raise DeviceTimeout(device_id=device_id, method=method, seconds=timeout)

    def answered(self, payload: str) -> None:
        """``hangar_answers`` callback: wake the caller waiting for this call."""
        caller, _, call_id = payload.partition(":")
        if caller != self.presence.id:
            return
        with self._lock:
            event = self._waiting.get(call_id)
        if event is not None:
            event.set()

    # -- holder side ----------------------------------------------------------------------
    def called(self, payload: str) -> None:
        """``hangar_calls`` callback: serve the call if this replica holds the socket."""
        holder, _, call_id = payload.partition(":")
        if holder == self.presence.id:
            self._pool.submit(self.serve, call_id)

    def catch_up(self) -> None:
        """After a (re)connect of the listener: serve calls that may have been missed."""
        with self.engine.connect() as conn:
            ids = conn.execute(
                sa.select(calls_t.c.id).where(
                    calls_t.c.holder == self.presence.id, calls_t.c.state == "pending"
                )
            ).scalars()
            for call_id in list(ids):
                self._pool.submit(self.serve, call_id)

    def serve(self, call_id: str) -> None:
        with transaction(self.engine) as conn:
            claimed = conn.execute(
                sa.update(calls_t)
                .where(calls_t.c.id == call_id, calls_t.c.state == "pending")
                .values(state="running")
            )
            if not claimed.rowcount:
                return  # served already, or the caller gave up
            row = conn.execute(sa.select(calls_t).where(calls_t.c.id == call_id)).one()
        values: dict[str, Any]
        try:
            link = self.directory.local_link(row.device_id)
            if link is None:
                raise DeviceUnavailable(device_id=row.device_id)
            spec = METHODS[row.method]
            request = decode_json(spec.request, bytes(row.request))
            answer = link.call(row.method, request)
            values = {"state": "done", "response": msgspec.json.encode(answer)}
        except HangarError as exc:
            values = {"state": "failed", "error": _error_json(exc)}
        except Exception as exc:
            log.exception("routed call %s failed", row.method)
            values = {"state": "failed", "error": _error_json(exc)}
        with transaction(self.engine) as conn:
            conn.execute(sa.update(calls_t).where(calls_t.c.id == call_id).values(**values))
        self.served += 1
        self.notifier.send(ANSWERS, f"{row.caller}:{call_id}")

    def sweep(self) -> None:
        """Drop calls whose deadline passed long ago (their callers are gone)."""
        with transaction(self.engine) as conn:
            conn.execute(
                sa.delete(calls_t).where(calls_t.c.deadline_at < now() - timedelta(minutes=5))
            )

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _error_json(exc: BaseException) -> str:
    if isinstance(exc, HangarError):
        body = {
            "code": exc.code,
            "message": str(exc),
            "status": exc.http_status,
            "details": exc.details(),
        }
    else:
        body = {"code": "internal_error", "message": type(exc).__name__, "status": 500}
    return json.dumps(body, default=str)


class RoutedLink:
    """An :class:`~hangar.hub.executor_link.ExecutorLink` to a device held by ``holder``."""

    def __init__(self, mailbox: Mailbox, device_id: str, holder: str) -> None:
        self.mailbox = mailbox
        self.device_id = device_id
        self.holder = holder

    def call(self, method: str, request: Any) -> Any:
        return self.mailbox.call(self.device_id, self.holder, method, request)

    def close(self) -> None:
        pass
