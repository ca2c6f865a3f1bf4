"""Registered devices in the hub database: tokens, binding, connection and state.

- ``hangar device add NAME`` (or the web UI) creates a registration with a fresh token; only
  its SHA-256 is stored, the token is shown once.
- The first executor that connects with the token binds it to its ``deviceId``; from then
  on a different device presenting the same token is refused (one token, one machine).
- A device has at most one live connection in the whole hub: :func:`claim_connection` takes
  the row under a row lock (PostgreSQL; SQLite has one writer anyway) and refuses while the
  replica holding the previous connection is alive. The database is the only shared state.
- Revoking keeps the row (its history) and refuses its token from then on.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from hangar.errors import HangarError, NotFoundError, UsageError
from hangar.hub.store import schema
from hangar.hub.store.workspaces import Workspace, iso
from hangar.hub.store.writes import transaction

devices_t = schema.devices
TOKEN_PREFIX = "hgd_"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.strip().encode()).hexdigest()


def now() -> datetime:
    return datetime.now(UTC)


@dataclass(eq=False)
class ConnectionRefused(HangarError):
    """A device that may not connect now; ``close_code`` is the WebSocket close code."""

    close_code: int = 4403
    code: ClassVar[str] = "device_refused"
    http_status: ClassVar[int] = 403


@dataclass(frozen=True)
class Registration:
    id: str
    name: str
    device_id: str | None
    revoked: bool


def _row(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "name": row.name,
        "deviceId": row.device_id,
        "state": "revoked" if row.revoked_at is not None else row.state,
        "createdAt": iso(row.created_at),
        "revokedAt": iso(row.revoked_at),
        "connectedAt": iso(row.connected_at),
        "lastSeenAt": iso(row.last_seen_at),
        "clientIp": row.client_ip,
        "transferHost": row.transfer_host,
        "deviceName": row.device_name,
        "executorVersion": row.executor_version,
        "replicaId": row.replica_id,
    }


def add_device(engine: Engine, workspace: Workspace, name: str) -> tuple[dict[str, Any], str]:
    """A new registration named ``name``; returns it and its token (shown only now)."""
    name = name.strip()
    if not name or len(name) > 200:
        raise UsageError("a device name is 1 to 200 characters")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with transaction(engine) as conn:
        taken = conn.execute(
            sa.select(devices_t.c.id).where(
                devices_t.c.workspace_id == workspace.id,
                devices_t.c.name == name,
                devices_t.c.revoked_at.is_(None),
            )
        ).first()
        if taken is not None:
            raise UsageError(f"a device named {name!r} exists; revoke it first or pick another")
        registration_id = str(uuid.uuid4())
        conn.execute(
            sa.insert(devices_t).values(
                id=registration_id,
                workspace_id=workspace.id,
                name=name,
                token_hash=token_hash(token),
                created_at=now(),
            )
        )
        row = conn.execute(sa.select(devices_t).where(devices_t.c.id == registration_id)).one()
    return _row(row), token


def list_devices(engine: Engine, workspace: Workspace) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(devices_t)
            .where(devices_t.c.workspace_id == workspace.id)
            .order_by(devices_t.c.revoked_at.is_not(None), devices_t.c.name)
        ).all()
    return [_row(r) for r in rows]


def find(engine: Engine, workspace: Workspace, key: str) -> dict[str, Any]:
    """A registration by id, device id or (unrevoked) name."""
    rows = [
        d
        for d in list_devices(engine, workspace)
        if key in (d["id"], d["deviceId"]) or (d["name"] == key and d["revokedAt"] is None)
    ]
    if not rows:
        raise NotFoundError(kind="device", key=key)
    return rows[0]


def revoke(engine: Engine, workspace: Workspace, key: str) -> dict[str, Any]:
    """Refuse the registration's token from now on (its live connection is closed by the
    replica holding it, told through the database)."""
    found = find(engine, workspace, key)
    with transaction(engine) as conn:
        conn.execute(
            sa.update(devices_t)
            .where(devices_t.c.id == found["id"], devices_t.c.revoked_at.is_(None))
            .values(revoked_at=now())
        )
        row = conn.execute(sa.select(devices_t).where(devices_t.c.id == found["id"])).one()
    return _row(row)


def authenticate(engine: Engine, token: str) -> Registration | None:
    """The registration of ``token``, or ``None`` for an unknown token."""
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(devices_t).where(devices_t.c.token_hash == token_hash(token))
        ).first()
    if row is None:
        return None
    return Registration(row.id, row.name, row.device_id, row.revoked_at is not None)


@dataclass(frozen=True)
class Claim:
    registration_id: str
    device_id: str
    connection_id: str
    replica_id: str
    name: str


def claim_connection(
    engine: Engine,
    registration: Registration,
    *,
    device_id: str,
    replica_id: str,
    client_ip: str | None,
    transfer_host: str | None,
    device_name: str,
    version: str,
    alive: Callable[[str, str], bool],
) -> Claim:
    """Make this the device's one connection, or raise :class:`ConnectionRefused`.

    ``alive(replica_id, connection_id)`` says whether a previous connection still stands.
    """
    connection_id = str(uuid.uuid4())
    with transaction(engine) as conn:
        row = conn.execute(
            sa.select(devices_t).where(devices_t.c.id == registration.id).with_for_update()
        ).one()
        if row.revoked_at is not None:
            raise ConnectionRefused("this device token was revoked", close_code=4403)
        if row.device_id is not None and row.device_id != device_id:
            raise ConnectionRefused(
                "this device token belongs to another machine; create a token per device "
                "with `hangar device add NAME`",
                close_code=4403,
            )
        other = conn.execute(
            sa.select(devices_t.c.id).where(
                devices_t.c.device_id == device_id,
                devices_t.c.id != registration.id,
                devices_t.c.revoked_at.is_(None),
            )
        ).first()
        if other is not None:
            raise ConnectionRefused(
                "this device is registered under another token", close_code=4403
            )
        if (
            row.replica_id is not None
            and row.connection_id is not None
            and alive(row.replica_id, row.connection_id)
        ):
            raise ConnectionRefused(
                f"device already connected from {row.client_ip or 'another address'}; "
                "a device token is for one machine",
                close_code=4409,
            )
        stamp = now()
        conn.execute(
            sa.update(devices_t)
            .where(devices_t.c.id == registration.id)
            .values(
                device_id=device_id,
                state="online",
                replica_id=replica_id,
                connection_id=connection_id,
                connected_at=stamp,
                last_seen_at=stamp,
                client_ip=client_ip,
                transfer_host=transfer_host,
                device_name=device_name[:200] or None,
                executor_version=version[:50] or None,
            )
        )
    return Claim(registration.id, device_id, connection_id, replica_id, registration.name)


def set_state(engine: Engine, claim: Claim, state: str) -> None:
    with transaction(engine) as conn:
        conn.execute(
            sa.update(devices_t)
            .where(devices_t.c.connection_id == claim.connection_id)
            .values(state=state, last_seen_at=now())
        )


def release_connection(engine: Engine, claim: Claim) -> None:
    """The connection ended: the device is offline unless a newer connection took over."""
    with transaction(engine) as conn:
        conn.execute(
            sa.update(devices_t)
            .where(devices_t.c.connection_id == claim.connection_id)
            .values(state="offline", replica_id=None, connection_id=None, last_seen_at=now())
        )


def release_replica(engine: Engine, replica_id: str) -> int:
    """Every connection of ``replica_id`` ended (it stopped, or died); returns how many."""
    with transaction(engine) as conn:
        result = conn.execute(
            sa.update(devices_t)
            .where(devices_t.c.replica_id == replica_id)
            .values(state="offline", replica_id=None, connection_id=None)
        )
    return int(result.rowcount or 0)


def connected(engine: Engine, workspace: Workspace) -> list[dict[str, Any]]:
    """Registrations with a connection recorded (the caller checks the replicas)."""
    return [d for d in list_devices(engine, workspace) if d["replicaId"] is not None]
