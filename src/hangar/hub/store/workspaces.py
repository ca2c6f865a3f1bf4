"""The workspace, its members, projects and labels over SQLAlchemy Core.

A hub has one workspace (key prefix ``HGR``), created with its owner member on first start by
:func:`ensure_workspace`, which is safe to run from several processes at once.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from hangar.errors import UsageError
from hangar.hub.store import schema
from hangar.hub.store.writes import transaction

DEFAULT_PREFIX = "HGR"


@dataclass(frozen=True)
class Workspace:
    id: str
    name: str
    key_prefix: str
    owner_id: str


def iso(value: datetime | None) -> str | None:
    """ISO 8601 in UTC; SQLite hands back naive datetimes that were stored as UTC."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def ensure_workspace(engine: Engine, owner_name: str, prefix: str = DEFAULT_PREFIX) -> Workspace:
    """The workspace with ``prefix``, created with an owner member when missing."""
    ws, members = schema.workspaces, schema.members
    now = datetime.now(UTC)
    try:
        with transaction(engine) as conn:
            workspace_id = str(uuid.uuid4())
            conn.execute(
                sa.insert(ws).values(
                    id=workspace_id, name="hangar", key_prefix=prefix, created_at=now
                )
            )
            conn.execute(
                sa.insert(members).values(
                    id=str(uuid.uuid4()),
                    workspace_id=workspace_id,
                    name=owner_name,
                    role="owner",
                    created_at=now,
                )
            )
    except sa.exc.IntegrityError:
        pass  # Another process created it first; read theirs below.
    with engine.connect() as conn:
        row = conn.execute(sa.select(ws).where(ws.c.key_prefix == prefix)).one()
        owner = conn.execute(
            sa.select(members.c.id)
            .where(members.c.workspace_id == row.id, members.c.role == "owner")
            .order_by(members.c.created_at)
        ).first()
    if owner is None:  # pragma: no cover - a workspace is only ever created with its owner
        raise UsageError(f"workspace {prefix} has no owner")
    return Workspace(row.id, row.name, row.key_prefix, owner.id)


MEMBER_ROLES = ("owner", "agent")
"""``owner``: the person the hub belongs to; ``agent``: a coding agent an issue can be handed
to (the run then starts through ``hangar run`` wherever that agent is picked up)."""


def _member_json(r: Any) -> dict[str, Any]:
    return {
        "id": r.id,
        "name": r.name,
        "email": r.email,
        "role": r.role,
        "createdAt": iso(r.created_at),
    }


def list_members(engine: Engine, workspace: Workspace) -> list[dict[str, Any]]:
    m = schema.members
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(m).where(m.c.workspace_id == workspace.id).order_by(m.c.created_at)
        ).all()
    return [_member_json(r) for r in rows]


def get_member(engine: Engine, workspace: Workspace, member_id: str) -> dict[str, Any] | None:
    m = schema.members
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(m).where(m.c.id == member_id, m.c.workspace_id == workspace.id)
        ).first()
    return _member_json(row) if row is not None else None


def create_agent_member(
    engine: Engine, workspace: Workspace, name: str, email: str | None = None
) -> dict[str, Any]:
    """Add an agent member (role ``agent``): something an issue can be handed to."""
    name = name.strip()
    if not name:
        raise UsageError("a member needs a name")
    m = schema.members
    member_id = str(uuid.uuid4())
    with transaction(engine) as conn:
        conn.execute(
            sa.insert(m).values(
                id=member_id,
                workspace_id=workspace.id,
                name=name,
                email=email,
                role="agent",
                created_at=datetime.now(UTC),
            )
        )
    found = get_member(engine, workspace, member_id)
    assert found is not None
    return found


def _project_json(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "name": row.name,
        "description": row.description,
        "createdAt": iso(row.created_at),
    }


def list_projects(engine: Engine, workspace: Workspace) -> list[dict[str, Any]]:
    p = schema.projects
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(p).where(p.c.workspace_id == workspace.id).order_by(p.c.name)
        ).all()
    return [_project_json(r) for r in rows]


def create_project(
    engine: Engine, workspace: Workspace, name: str, description: str = ""
) -> dict[str, Any]:
    name = name.strip()
    if not name:
        raise UsageError("name must not be empty")
    p = schema.projects
    values = {
        "id": str(uuid.uuid4()),
        "workspace_id": workspace.id,
        "name": name,
        "description": description,
        "created_at": datetime.now(UTC),
    }
    try:
        with transaction(engine) as conn:
            conn.execute(sa.insert(p).values(**values))
    except sa.exc.IntegrityError:
        raise UsageError(f"a project named {name!r} already exists") from None
    with engine.connect() as conn:
        return _project_json(conn.execute(sa.select(p).where(p.c.id == values["id"])).one())


def _label_json(row: Any) -> dict[str, Any]:
    return {"id": row.id, "name": row.name, "color": row.color, "createdAt": iso(row.created_at)}


def list_labels(engine: Engine, workspace: Workspace) -> list[dict[str, Any]]:
    lb = schema.labels
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(lb).where(lb.c.workspace_id == workspace.id).order_by(lb.c.name)
        ).all()
    return [_label_json(r) for r in rows]


def _check_label_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > 100:
        raise UsageError("a label name must have 1 to 100 characters")
    return name


def create_label(
    engine: Engine, workspace: Workspace, name: str, color: str = "#888888"
) -> dict[str, Any]:
    name = _check_label_name(name)
    lb = schema.labels
    label_id = str(uuid.uuid4())
    try:
        with transaction(engine) as conn:
            conn.execute(
                sa.insert(lb).values(
                    id=label_id,
                    workspace_id=workspace.id,
                    name=name,
                    color=color,
                    created_at=datetime.now(UTC),
                )
            )
    except sa.exc.IntegrityError:
        raise UsageError(f"a label named {name!r} already exists") from None
    with engine.connect() as conn:
        return _label_json(conn.execute(sa.select(lb).where(lb.c.id == label_id)).one())


def label_ids_for_names(conn: Connection, workspace: Workspace, names: Iterable[str]) -> list[str]:
    """Ids of the labels called ``names``; missing ones are created in ``conn``'s transaction."""
    lb = schema.labels
    wanted = list(dict.fromkeys(_check_label_name(n) for n in names))
    if not wanted:
        return []
    rows = conn.execute(
        sa.select(lb.c.id, lb.c.name).where(
            lb.c.workspace_id == workspace.id, lb.c.name.in_(wanted)
        )
    ).all()
    ids = {r.name: r.id for r in rows}
    for name in wanted:
        if name not in ids:
            ids[name] = str(uuid.uuid4())
            conn.execute(
                sa.insert(lb).values(
                    id=ids[name],
                    workspace_id=workspace.id,
                    name=name,
                    created_at=datetime.now(UTC),
                )
            )
    return [ids[name] for name in wanted]
