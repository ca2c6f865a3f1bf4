"""Device Workspaces: a device's directory bound to a Project (RW-301..305).

A Project of the runtime-work list is a device's folder (:mod:`hangar.hub.runtime_work`);
binding another device's directory to it makes that directory a copy target of the Project's
tasks. Rows sharing a ``project_key`` are one Project: the key is the ``projectId`` of the
folder it was first bound from, which is bound too (label ``workspace``) so a task in any
bound directory finds the others. A directory belongs to one Project.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from hangar.errors import UsageError
from hangar.hub.store import schema
from hangar.hub.store.workspaces import Workspace
from hangar.hub.store.writes import transaction

Label = Literal["workspace", "worktree"]
LABELS: tuple[Label, ...] = ("workspace", "worktree")


@dataclass(frozen=True)
class DeviceWorkspace:
    project_key: str
    device_id: str
    workspace_path: str
    label: Label


def list_device_workspaces(engine: Engine, workspace: Workspace) -> list[DeviceWorkspace]:
    dw = schema.device_workspaces
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(dw).where(dw.c.workspace_id == workspace.id).order_by(dw.c.created_at)
        ).all()
    return [DeviceWorkspace(r.project_key, r.device_id, r.workspace_path, r.label) for r in rows]


def bind_device_workspace(
    engine: Engine, workspace: Workspace, bound: DeviceWorkspace, *, keep_label: bool = False
) -> DeviceWorkspace:
    """Bind ``bound``'s directory to its Project; a directory already bound to this Project
    takes the new label (unless ``keep_label``), one bound to another Project is refused."""
    if bound.label not in LABELS:
        raise UsageError(f"a device workspace label is one of {', '.join(LABELS)}")
    dw = schema.device_workspaces
    where = (
        dw.c.workspace_id == workspace.id,
        dw.c.device_id == bound.device_id,
        dw.c.workspace_path == bound.workspace_path,
    )
    with transaction(engine) as conn:
        row = conn.execute(sa.select(dw).where(*where)).first()
        if row is None:
            conn.execute(
                sa.insert(dw).values(
                    id=str(uuid.uuid4()),
                    workspace_id=workspace.id,
                    project_key=bound.project_key,
                    device_id=bound.device_id,
                    workspace_path=bound.workspace_path,
                    label=bound.label,
                    created_at=datetime.now(UTC),
                )
            )
            return bound
        if row.project_key != bound.project_key:
            raise UsageError(
                f"{bound.workspace_path} on that device belongs to another project already"
            )
        if keep_label:
            return DeviceWorkspace(row.project_key, row.device_id, row.workspace_path, row.label)
        conn.execute(sa.update(dw).where(*where).values(label=bound.label))
    return bound
