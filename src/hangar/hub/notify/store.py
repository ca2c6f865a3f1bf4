"""Notification state in the hub database: the switch, targets, subscriptions, deliveries.

Everything is keyed by ``deviceId`` + ``localTaskId`` (RW-325): no task row is created and no
workspace path is stored. A delivery is one reply to one target; the pair
(target, deviceId, localTaskId, updateKey) is unique, so the same reply reported twice — by a
send started from hangar and by the executor's own watcher, or by two replicas — is
delivered once (RW-332).

Targets have a scope: ``global`` targets receive every final reply while the user's switch is
on (``/notify on``); ``task`` targets receive only the tasks subscribed to them (RW-328).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from hangar.errors import NotFoundError, UsageError
from hangar.hub.devices.registry import now
from hangar.hub.store import schema
from hangar.hub.store.workspaces import iso
from hangar.hub.store.writes import transaction
from hangar.protocol.events import TaskUpdated

settings_t = schema.notification_settings
targets_t = schema.notification_targets
subs_t = schema.notification_subscriptions
deliveries_t = schema.notification_deliveries

Scope = Literal["global", "task"]


def redacted(url: str) -> str:
    """The target's URL with its secrets masked (Apprise's privacy form)."""
    import apprise

    found = apprise.Apprise()
    if found.add(url):
        for service in found:
            return str(service.url(privacy=True)).split("?", 1)[0]  # type: ignore[no-untyped-call]
    return url.split("://", 1)[0] + "://…"


def check_url(url: str) -> None:
    """Refuse a URL Apprise does not understand (naming the scheme, never the secret)."""
    import apprise

    if not apprise.Apprise().add(url):
        scheme = url.split("://", 1)[0][:40] if "://" in url else "?"
        raise UsageError(f"not a notification URL Apprise understands (scheme {scheme!r})")


# -- the switch ---------------------------------------------------------------------------
def enabled(engine: Engine, member_id: str) -> bool:
    with engine.connect() as conn:
        value = conn.execute(
            sa.select(settings_t.c.enabled).where(settings_t.c.member_id == member_id)
        ).scalar()
    return bool(value)


def set_enabled(engine: Engine, member_id: str, on: bool) -> bool:
    with transaction(engine) as conn:
        updated = conn.execute(
            sa.update(settings_t)
            .where(settings_t.c.member_id == member_id)
            .values(enabled=on, updated_at=now())
        )
        if not updated.rowcount:
            conn.execute(
                _insert_ignore(conn, settings_t).values(
                    member_id=member_id, enabled=on, updated_at=now()
                )
            )
    return on


# -- targets and subscriptions ------------------------------------------------------------
def add_target(engine: Engine, member_id: str, name: str, url: str, scope: Scope) -> dict[str, Any]:
    check_url(url)
    target_id = str(uuid.uuid4())
    with transaction(engine) as conn:
        taken = conn.execute(
            sa.select(targets_t.c.id).where(
                targets_t.c.member_id == member_id, targets_t.c.name == name
            )
        ).first()
        if taken is not None:
            raise UsageError(f"a notification target named {name!r} exists")
        conn.execute(
            sa.insert(targets_t).values(
                id=target_id, member_id=member_id, name=name, url=url, scope=scope, created_at=now()
            )
        )
    return target(engine, member_id, target_id)


def _target_row(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "name": row.name,
        "url": redacted(row.url),
        "scope": row.scope,
        "createdAt": iso(row.created_at),
    }


def targets(engine: Engine, member_id: str) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(targets_t)
            .where(targets_t.c.member_id == member_id)
            .order_by(targets_t.c.name)
        ).all()
    return [_target_row(r) for r in rows]


def target(engine: Engine, member_id: str, key: str) -> dict[str, Any]:
    """A target by id or name."""
    for item in targets(engine, member_id):
        if key in (item["id"], item["name"]):
            return item
    raise NotFoundError(kind="notification target", key=key)


def target_url(engine: Engine, target_id: str) -> str:
    with engine.connect() as conn:
        url = conn.execute(sa.select(targets_t.c.url).where(targets_t.c.id == target_id)).scalar()
    if url is None:
        raise NotFoundError(kind="notification target", key=target_id)
    return str(url)


def delete_target(engine: Engine, member_id: str, key: str) -> None:
    found = target(engine, member_id, key)
    with transaction(engine) as conn:
        conn.execute(sa.delete(targets_t).where(targets_t.c.id == found["id"]))


def subscribe(
    engine: Engine, member_id: str, target_key: str, device_id: str, local_task_id: str
) -> dict[str, Any]:
    found = target(engine, member_id, target_key)
    with transaction(engine) as conn:
        conn.execute(
            _insert_ignore(conn, subs_t).values(
                id=str(uuid.uuid4()),
                target_id=found["id"],
                device_id=device_id,
                local_task_id=local_task_id,
                created_at=now(),
            )
        )
    return {"targetId": found["id"], "deviceId": device_id, "localTaskId": local_task_id}


def unsubscribe(
    engine: Engine, member_id: str, target_key: str, device_id: str, local_task_id: str
) -> None:
    found = target(engine, member_id, target_key)
    with transaction(engine) as conn:
        conn.execute(
            sa.delete(subs_t).where(
                subs_t.c.target_id == found["id"],
                subs_t.c.device_id == device_id,
                subs_t.c.local_task_id == local_task_id,
            )
        )


def subscriptions(engine: Engine, member_id: str) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(subs_t, targets_t.c.name)
            .join(targets_t, targets_t.c.id == subs_t.c.target_id)
            .where(targets_t.c.member_id == member_id)
            .order_by(subs_t.c.created_at)
        ).all()
    return [
        {
            "targetId": r.target_id,
            "target": r.name,
            "deviceId": r.device_id,
            "localTaskId": r.local_task_id,
        }
        for r in rows
    ]


# -- deliveries -----------------------------------------------------------------------------
def enqueue(engine: Engine, member_id: str, device_id: str, update: TaskUpdated) -> int:
    """Queue the reply for every target that should get it; returns how many rows are new
    (0 for a reply already queued: the dedupe of RW-332)."""
    title = f"{update.title or 'Task'} · {update.status}"
    stamp = now()
    added = 0
    with transaction(engine) as conn:
        on = conn.execute(
            sa.select(settings_t.c.enabled).where(settings_t.c.member_id == member_id)
        ).scalar()
        wanted: set[str] = set()
        if on:
            wanted |= set(
                conn.execute(
                    sa.select(targets_t.c.id).where(
                        targets_t.c.member_id == member_id, targets_t.c.scope == "global"
                    )
                ).scalars()
            )
        wanted |= set(
            conn.execute(
                sa.select(subs_t.c.target_id)
                .join(targets_t, targets_t.c.id == subs_t.c.target_id)
                .where(
                    targets_t.c.member_id == member_id,
                    subs_t.c.device_id == device_id,
                    subs_t.c.local_task_id == update.local_task_id,
                )
            ).scalars()
        )
        for target_id in sorted(wanted):
            result = conn.execute(
                _insert_ignore(conn, deliveries_t)
                .values(
                    id=str(uuid.uuid4()),
                    target_id=target_id,
                    device_id=device_id,
                    local_task_id=update.local_task_id,
                    update_key=update.update_key,
                    title=title,
                    body=update.content,
                    status="pending",
                    attempts=0,
                    next_attempt_at=stamp,
                    created_at=stamp,
                )
                .returning(deliveries_t.c.id)  # no row back for a duplicate (rowcount may be -1)
            )
            added += len(result.all())
    return added


@dataclass(frozen=True)
class Due:
    id: str
    target_id: str
    title: str
    body: str
    attempts: int


def claim_due(engine: Engine, limit: int = 20, lease: float = 60.0) -> list[Due]:
    """Take up to ``limit`` due deliveries for ``lease`` seconds (one replica each)."""
    stamp = now()
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(deliveries_t)
            .where(
                deliveries_t.c.status == "pending",
                deliveries_t.c.next_attempt_at <= stamp,
                sa.or_(
                    deliveries_t.c.claimed_until.is_(None), deliveries_t.c.claimed_until < stamp
                ),
            )
            .order_by(deliveries_t.c.next_attempt_at)
            .limit(limit)
        ).all()
    claimed: list[Due] = []
    for row in rows:
        with transaction(engine) as conn:
            result = conn.execute(
                sa.update(deliveries_t)
                .where(
                    deliveries_t.c.id == row.id,
                    deliveries_t.c.status == "pending",
                    sa.or_(
                        deliveries_t.c.claimed_until.is_(None),
                        deliveries_t.c.claimed_until < stamp,
                    ),
                )
                .values(claimed_until=stamp + timedelta(seconds=lease))
            )
        if result.rowcount:
            claimed.append(Due(row.id, row.target_id, row.title, row.body, row.attempts))
    return claimed


def settle(engine: Engine, due: Due, error: str | None, retry_at: datetime | None) -> None:
    """Record one attempt: sent, failed for good (``retry_at`` None), or to be retried."""
    values: dict[str, Any] = {"attempts": due.attempts + 1, "claimed_until": None}
    if error is None:
        values |= {"status": "sent", "sent_at": now(), "last_error": None}
    elif retry_at is None:
        values |= {"status": "failed", "last_error": error[:1000]}
    else:
        values |= {"next_attempt_at": retry_at, "last_error": error[:1000]}
    with transaction(engine) as conn:
        conn.execute(sa.update(deliveries_t).where(deliveries_t.c.id == due.id).values(**values))


def deliveries(engine: Engine, member_id: str, limit: int = 50) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(deliveries_t, targets_t.c.name)
            .join(targets_t, targets_t.c.id == deliveries_t.c.target_id)
            .where(targets_t.c.member_id == member_id)
            .order_by(deliveries_t.c.created_at.desc())
            .limit(limit)
        ).all()
    return [
        {
            "id": r.id,
            "target": r.name,
            "deviceId": r.device_id,
            "localTaskId": r.local_task_id,
            "updateKey": r.update_key,
            "title": r.title,
            "status": r.status if r.status != "pending" or not r.last_error else "retrying",
            "attempts": r.attempts,
            "lastError": r.last_error,
            "createdAt": iso(r.created_at),
            "sentAt": iso(r.sent_at),
            "nextAttemptAt": iso(r.next_attempt_at) if r.status == "pending" else None,
        }
        for r in rows
    ]


def _insert_ignore(conn: Connection, table: sa.Table) -> Any:
    """``INSERT … ON CONFLICT DO NOTHING`` for SQLite and PostgreSQL."""
    if conn.dialect.name == "postgresql":
        return postgresql.insert(table).on_conflict_do_nothing()
    return sqlite.insert(table).on_conflict_do_nothing()
