"""The remote devices as this replica sees them: its own sockets, and the database for the rest.

:class:`DeviceDirectory` implements :class:`~hangar.hub.executor_link.RemoteDevices`. A device
connected to this replica is reached through its :class:`~.ws_link.WebSocketLink`; a device
connected to another live replica through a :class:`~.mailbox.RoutedLink` (calls written to
the database and answered by that replica); any other registered device is offline and
contributes nothing (RW-043). States come from the database, so every replica shows the same.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from hangar.hub.devices import registry
from hangar.hub.devices.registry import Claim
from hangar.hub.devices.replicas import STALE, ReplicaPresence
from hangar.hub.devices.ws_link import Timeouts, WebSocketLink
from hangar.hub.executor_link import DeviceState, ExecutorLink, State
from hangar.hub.store import schema
from hangar.hub.store.workspaces import Workspace

if TYPE_CHECKING:
    from hangar.hub.devices.mailbox import Mailbox

log = logging.getLogger("hangar.hub.devices")


@dataclass
class Held:
    claim: Claim
    link: WebSocketLink


class DeviceDirectory:
    """See the module docstring."""

    def __init__(
        self,
        engine: Engine,
        workspace: Workspace,
        presence: ReplicaPresence,
        timeouts: Timeouts | None = None,
    ) -> None:
        self.engine = engine
        self.workspace = workspace
        self.presence = presence
        self.timeouts = timeouts or Timeouts()
        self.mailbox: Mailbox | None = None
        self._held: dict[str, Held] = {}
        self._lock = threading.Lock()

    # -- this replica's connections ---------------------------------------------------------
    def attach(self, claim: Claim, link: WebSocketLink) -> None:
        with self._lock:
            self._held[claim.device_id] = Held(claim, link)

    def detach(self, claim: Claim) -> None:
        with self._lock:
            held = self._held.get(claim.device_id)
            if held is not None and held.claim.connection_id == claim.connection_id:
                del self._held[claim.device_id]
        registry.release_connection(self.engine, claim)

    def local_link(self, device_id: str) -> WebSocketLink | None:
        with self._lock:
            held = self._held.get(device_id)
        return held.link if held is not None else None

    def holds(self, replica_id: str, connection_id: str) -> bool:
        """Whether ``connection_id`` still stands (for :func:`registry.claim_connection`)."""
        if replica_id != self.presence.id:
            return self.presence.alive(replica_id)
        with self._lock:
            return any(h.claim.connection_id == connection_id for h in self._held.values())

    def disconnect(self, device_id: str, code: int, reason: str) -> bool:
        """Close this replica's connection of ``device_id`` (revoked); whether it had one."""
        link = self.local_link(device_id)
        if link is None:
            return False
        link.fail_all(reason)
        link.submit_close(code, reason)
        return True

    # -- RemoteDevices ----------------------------------------------------------------------
    def link(self, device_id: str) -> ExecutorLink | None:
        local = self.local_link(device_id)
        if local is not None:
            return local
        if self.mailbox is None:
            return None
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(schema.devices.c.replica_id).where(
                    schema.devices.c.device_id == device_id,
                    schema.devices.c.revoked_at.is_(None),
                    schema.devices.c.replica_id.is_not(None),
                )
            ).first()
        if row is None or row.replica_id == self.presence.id:
            return None
        if not self.presence.alive(row.replica_id):
            return None
        return self.mailbox.link(device_id, row.replica_id)

    def states(self) -> list[DeviceState]:
        devices = schema.devices
        cutoff = registry.now() - timedelta(seconds=STALE)
        replicas = schema.hub_replicas
        # One statement per call (the list asks on every request): each device with whether
        # the replica holding it is alive.
        held_alive = (
            sa.select(replicas.c.id)
            .where(replicas.c.id == devices.c.replica_id, replicas.c.heartbeat_at >= cutoff)
            .exists()
        )
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(devices, held_alive.label("replica_alive")).where(
                    devices.c.workspace_id == self.workspace.id,
                    devices.c.revoked_at.is_(None),
                    devices.c.device_id.is_not(None),
                )
            ).all()
        found: list[DeviceState] = []
        for row in rows:
            state: State = "offline"
            if row.replica_id is not None and (
                row.replica_id == self.presence.id or row.replica_alive
            ):
                state = "busy" if row.state == "busy" else "online"
                if row.replica_id == self.presence.id and self.local_link(row.device_id) is None:
                    state = "offline"
            found.append(
                DeviceState(
                    device_id=row.device_id,
                    name=row.name,
                    state=state,
                    client_ip=row.client_ip if state != "offline" else None,
                    transfer_host=row.transfer_host if state != "offline" else None,
                )
            )
        return found

    def close(self) -> None:
        with self._lock:
            held = list(self._held.values())
        for item in held:
            item.link.close()
