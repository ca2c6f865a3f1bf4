"""Remote executors for one hub replica: presence, directory, routed calls, shared events.

:class:`DeviceService` is built by the composition root. On SQLite (one hub process) it is the
directory of devices connected to this process plus the replica heartbeat. On PostgreSQL,
where several ``hangar serve`` replicas share one database, it adds:

- events published on this replica's bus go to the others through ``NOTIFY hangar_events``
  (and theirs come back through ``LISTEN``), so a page open on replica B sees an issue created
  on replica A, or a device connected to A changing;
- calls for a device whose socket another replica holds go through ``device_calls``
  (:mod:`.mailbox`);
- a revoked device's connection is closed by whichever replica holds it (``device.revoked``
  travels like any other event).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from sqlalchemy.engine import Engine

from hangar.hub.devices.directory import DeviceDirectory
from hangar.hub.devices.mailbox import ANSWERS, CALLS, Mailbox
from hangar.hub.devices.replicas import HeartbeatWorker, ReplicaPresence
from hangar.hub.devices.ws_link import Timeouts
from hangar.hub.events import EventBus
from hangar.hub.store.pg_notify import MAX_PAYLOAD, Listener, Notifier, is_postgresql
from hangar.hub.store.workspaces import Workspace
from hangar.hub.workers.periodic import PeriodicWorker
from hangar.protocol import frames as f

log = logging.getLogger("hangar.hub.devices")

EVENTS = "hangar_events"
_SLIM_KEYS = frozenset(
    {"deviceId", "key", "localTaskIds", "localTaskId", "taskId", "subtaskId", "type", "updateKey"}
)
"""What an event too large for ``NOTIFY`` keeps (with ``slim: true``): enough for a page to
know what to re-read (a turn's identity and type, an issue's key)."""
DEVICE_REVOKED = "device.revoked"
RESYNC = "hub.resync"
"""Sent to this replica's pages when it may have missed other replicas' events."""


class _Sweeper(PeriodicWorker):
    def __init__(self, mailbox: Mailbox) -> None:
        super().__init__("hangar-call-sweeper", 60.0)
        self.mailbox = mailbox

    def step(self) -> None:
        self.mailbox.sweep()


class DeviceService:
    """See the module docstring."""

    def __init__(self, engine: Engine, workspace: Workspace, timeouts: Timeouts | None = None):
        self.engine = engine
        self.timeouts = timeouts or Timeouts()
        self.presence = ReplicaPresence(engine)
        self.directory = DeviceDirectory(engine, workspace, self.presence, self.timeouts)
        self.shared = is_postgresql(engine)
        self.notifier = Notifier(engine) if self.shared else None
        self.mailbox: Mailbox | None = None
        if self.notifier is not None:
            self.mailbox = Mailbox(
                engine, self.presence, self.directory, self.notifier, self.timeouts
            )
            self.directory.mailbox = self.mailbox
        self.listener: Listener | None = None
        self.bus: EventBus | None = None
        self._workers: list[PeriodicWorker] = []

    def start(self, bus: EventBus) -> None:
        """Register this replica and start its workers; events of ``bus`` are shared."""
        self.bus = bus
        bus.add_listener(self._on_event)
        self.presence.register()
        self.presence.beat()
        self._workers.append(HeartbeatWorker(self.presence).start())
        if self.notifier is None or self.mailbox is None:
            return
        self.notifier.start()
        bus.relay = self._relay
        mailbox = self.mailbox
        self.listener = Listener(
            self.engine,
            {EVENTS: self._received, CALLS: mailbox.called, ANSWERS: mailbox.answered},
            on_connect=self._listening,
        )
        self.listener.start()
        self._workers.append(_Sweeper(mailbox).start())

    def stop(self) -> None:
        """Close this replica's device connections and retire it."""
        for worker in self._workers:
            worker.stop()
        self.directory.close()
        try:
            self.presence.retire()
        except Exception as exc:  # the database may be gone at shutdown
            log.warning("could not retire this replica: %s", exc)
        if self.listener is not None:
            self.listener.stop()
        if self.mailbox is not None:
            self.mailbox.close()
        if self.notifier is not None:
            self.notifier.stop()

    # -- events between replicas ------------------------------------------------------------
    def _listening(self) -> None:
        """The listener is (again) connected: serve missed calls and, after a reconnect, tell
        this replica's pages to refetch what they show (events relayed meanwhile are lost)."""
        assert self.mailbox is not None
        self.mailbox.catch_up()
        if self.listener is not None and self.listener.connects > 1 and self.bus is not None:
            self.bus.publish_local(RESYNC, {"reason": "replica_link_restored"})

    def _relay(self, event: str, data: dict[str, Any]) -> None:
        assert self.notifier is not None
        payload = json.dumps({"o": self.presence.id, "e": event, "d": data}, default=str)
        if len(payload.encode()) > MAX_PAYLOAD:
            slim = {k: v for k, v in data.items() if k in _SLIM_KEYS}
            payload = json.dumps({"o": self.presence.id, "e": event, "d": {**slim, "slim": True}})
        self.notifier.send(EVENTS, payload)

    def _received(self, payload: str) -> None:
        try:
            message = json.loads(payload)
        except json.JSONDecodeError:
            return
        if not isinstance(message, dict) or message.get("o") == self.presence.id:
            return
        event, data = message.get("e"), message.get("d")
        if isinstance(event, str) and isinstance(data, dict) and self.bus is not None:
            self.bus.publish_local(event, data)

    def _on_event(self, event: str, data: dict[str, Any]) -> None:
        device_id = data.get("deviceId")
        if event != DEVICE_REVOKED or not isinstance(device_id, str):
            return
        if self.directory.disconnect(device_id, f.CLOSE_REFUSED, "this device token was revoked"):
            log.info("closed the connection of revoked device %s", device_id)
