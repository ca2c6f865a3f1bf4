"""The hub replicas sharing one database, and which of them are alive.

Each ``hangar serve`` process is a replica with a fresh id. It records itself in
``hub_replicas`` and refreshes ``heartbeat_at`` every :data:`HEARTBEAT` seconds; a replica
whose heartbeat is older than :data:`STALE` is dead, and the first live replica to notice
releases the device connections it held (so those devices may connect elsewhere) and forgets
it. Nothing else is exchanged between replicas: the database is the shared state.
"""

from __future__ import annotations

import logging
import socket
import uuid
from datetime import timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from hangar.hub.devices.registry import now, release_replica
from hangar.hub.store import schema
from hangar.hub.store.writes import transaction
from hangar.hub.workers.periodic import PeriodicWorker

log = logging.getLogger("hangar.hub.replicas")

HEARTBEAT = 2.0
STALE = 8.0

replicas_t = schema.hub_replicas


class ReplicaPresence:
    """This replica's row and the liveness of the others."""

    def __init__(self, engine: Engine, replica_id: str | None = None) -> None:
        self.engine = engine
        self.id = replica_id or str(uuid.uuid4())
        self.registered = False

    def register(self) -> None:
        """Record this replica (idempotent)."""
        stamp = now()
        with transaction(self.engine) as conn:
            conn.execute(sa.delete(replicas_t).where(replicas_t.c.id == self.id))
            conn.execute(
                sa.insert(replicas_t).values(
                    id=self.id,
                    host=socket.gethostname()[:255],
                    started_at=stamp,
                    heartbeat_at=stamp,
                )
            )
        self.registered = True

    def beat(self) -> list[str]:
        """Refresh this replica's heartbeat and retire dead replicas; returns their ids."""
        stamp = now()
        with transaction(self.engine) as conn:
            updated = conn.execute(
                sa.update(replicas_t).where(replicas_t.c.id == self.id).values(heartbeat_at=stamp)
            )
            if not updated.rowcount:  # retired by another replica while we were away
                conn.execute(
                    sa.insert(replicas_t).values(
                        id=self.id,
                        host=socket.gethostname()[:255],
                        started_at=stamp,
                        heartbeat_at=stamp,
                    )
                )
            dead = list(
                conn.execute(
                    sa.select(replicas_t.c.id).where(
                        replicas_t.c.heartbeat_at < stamp - timedelta(seconds=STALE)
                    )
                ).scalars()
            )
        for replica_id in dead:
            released = release_replica(self.engine, replica_id)
            with transaction(self.engine) as conn:
                conn.execute(sa.delete(replicas_t).where(replicas_t.c.id == replica_id))
                conn.execute(
                    sa.delete(schema.device_calls).where(schema.device_calls.c.holder == replica_id)
                )
            log.warning("replica %s stopped answering; released %d device(s)", replica_id, released)
        return dead

    def alive(self, replica_id: str) -> bool:
        if replica_id == self.id:
            return True
        cutoff = now() - timedelta(seconds=STALE)
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(replicas_t.c.heartbeat_at).where(replicas_t.c.id == replica_id)
            ).first()
        if row is None:
            return False
        stamp = row.heartbeat_at
        if stamp.tzinfo is None:
            stamp = stamp.replace(tzinfo=cutoff.tzinfo)
        return bool(stamp >= cutoff)

    def retire(self) -> None:
        """This replica stops: its connections end, its row goes."""
        if not self.registered:
            return
        release_replica(self.engine, self.id)
        with transaction(self.engine) as conn:
            conn.execute(sa.delete(replicas_t).where(replicas_t.c.id == self.id))
        self.registered = False


class HeartbeatWorker(PeriodicWorker):
    def __init__(self, presence: ReplicaPresence, interval: float = HEARTBEAT) -> None:
        super().__init__("hangar-replica-heartbeat", interval)
        self.presence = presence

    def step(self) -> None:
        self.presence.beat()
