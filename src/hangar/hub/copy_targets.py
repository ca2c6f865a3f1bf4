"""Where a task may be copied to (RW-301..305), and preparing an unbound device for it.

Targets stay within the task's Project: the task's own device (a copy beside it), the
directories of other online devices bound to the Project (RW-301), and online devices with no
directory bound to it yet, offered as ``unbound`` (RW-302). Unrelated Projects and unmapped
directories are never offered (RW-305). :func:`prepare_device_workspace` binds a directory the
device reports (or a new blank project it creates) to the Project with a label ``workspace``
or ``worktree`` (RW-303, RW-304); the copy then goes there as to any bound directory.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hangar.errors import NotFoundError, UsageError
from hangar.hub.context import HubContext
from hangar.hub.runtime_work import Bound, home_of, project_id, project_name
from hangar.hub.store.device_workspaces import (
    DeviceWorkspace,
    Label,
    bind_device_workspace,
    list_device_workspaces,
)
from hangar.protocol import create as cr
from hangar.protocol import methods as m


def bound_directories(ctx: HubContext) -> list[Bound]:
    return [
        Bound(d.device_id, d.workspace_path, d.label, d.project_key)
        for d in list_device_workspaces(ctx.engine, ctx.workspace)
    ]


def _find_task(view: Mapping[str, Any], device_id: str, local_task_id: str) -> dict[str, Any]:
    for project in view["projects"]:
        for task in project["tasks"]:
            if (task.get("deviceId"), task.get("localTaskId")) == (device_id, local_task_id):
                return {"task": task, "folder": project["workspacePath"]}
    for task in view["conversations"]:
        if (task.get("deviceId"), task.get("localTaskId")) == (device_id, local_task_id):
            return {"task": task, "folder": None}
    raise NotFoundError(f"no task {local_task_id} is listed on device {device_id}")


def project_key(bound: Iterable[Bound], device_id: str, folder: str) -> str:
    """The Project a device's folder belongs to: its binding's, else its own ``projectId``."""
    for b in bound:
        if (b.device_id, b.workspace_path) == (device_id, folder):
            return b.project_key
    return project_id(device_id, folder)


def copy_targets(
    view: Mapping[str, Any], bound: list[Bound], device_id: str, local_task_id: str
) -> dict[str, Any]:
    """The copy targets of a listed task, from the runtime-work ``view`` and the bindings."""
    found = _find_task(view, device_id, local_task_id)
    task, folder = found["task"], found["folder"]
    devices = {d["deviceId"]: d for d in view["devices"]}
    here = devices.get(device_id, {})
    targets: list[dict[str, Any]] = [
        {
            "kind": "this_device",
            "deviceId": device_id,
            "display": here.get("display") or device_id,
            "workspacePath": task.get("workspacePath"),
        }
    ]
    if folder is None:  # a Conversation has no Project to copy into elsewhere
        return {"projectKey": None, "projectName": None, "targets": targets}
    key = project_key(bound, device_id, folder)
    home = home_of(bound, key)
    online = [d for d in view["devices"] if d.get("online") and d["deviceId"] != device_id]
    members = [b for b in bound if b.project_key == key]
    for device in online:
        theirs = [b for b in members if b.device_id == device["deviceId"]]
        for b in theirs:
            targets.append(
                {
                    "kind": "device_workspace",
                    "deviceId": b.device_id,
                    "display": device.get("display") or b.device_id,
                    "workspacePath": b.workspace_path,
                    "label": b.label,
                }
            )
        if not theirs:
            targets.append(
                {
                    "kind": "unbound_device",
                    "deviceId": device["deviceId"],
                    "display": device.get("display") or device["deviceId"],
                }
            )
    return {
        "projectKey": key,
        "projectName": project_name(home.workspace_path if home else folder),
        "targets": targets,
    }


def require_copy_target(
    view: Mapping[str, Any],
    bound: list[Bound],
    device_id: str,
    local_task_id: str,
    target_device_id: str,
    target_workspace_path: str,
) -> None:
    """Refuse a copy to another device's directory that is not bound to the task's Project
    (RW-301): an unbound device is prepared first, so a copy never lands in another project."""
    wanted = (target_device_id, target_workspace_path.rstrip("/") or "/")
    offered = copy_targets(view, bound, device_id, local_task_id)["targets"]
    for target in offered:
        if (
            target["kind"] == "device_workspace"
            and (target["deviceId"], target["workspacePath"].rstrip("/") or "/") == wanted
        ):
            return
    raise UsageError(
        f"{target_workspace_path} on device {target_device_id} is not a directory of this "
        "task's project; bind it first (POST /api/runtime-work/device-workspaces/prepare)"
    )


def prepare_device_workspace(
    ctx: HubContext,
    view: Mapping[str, Any],
    device_id: str,
    local_task_id: str,
    target_device_id: str,
    label: Label,
    workspace_path: str | None = None,
    new_project_name: str | None = None,
) -> dict[str, Any]:
    """Bind a directory of ``target_device_id`` to the Project of the task (RW-302..304):
    one the device reports (``workspace_path``), or a new blank project it creates."""
    if (workspace_path is None) == (new_project_name is None):
        raise UsageError("name either the device's workspacePath or a newProjectName")
    found = _find_task(view, device_id, local_task_id)
    if found["folder"] is None:
        raise UsageError("a Conversation belongs to no project: it is copied on its own device")
    if target_device_id == device_id:
        raise UsageError("the task's own device needs no preparation")
    device = next((d for d in view["devices"] if d["deviceId"] == target_device_id), None)
    if device is None or not device.get("online"):
        raise UsageError(f"device {target_device_id} is not online")
    link = ctx.devices.link(target_device_id)
    if new_project_name is not None:
        created: cr.ProjectCreated = link.call(
            m.PROJECTS_CREATE.name, cr.CreateProject(name=new_project_name)
        )
        path = created.workspace_path
    else:
        reported: cr.ProjectList = link.call(m.PROJECTS_LIST.name, cr.ProjectsRequest())
        paths = {p.workspace_path.rstrip("/") for p in reported.projects}
        path = (workspace_path or "").rstrip("/") or "/"
        if path not in paths:
            raise UsageError(f"device {target_device_id} reports no directory {path}")
    bound = bound_directories(ctx)
    key = project_key(bound, device_id, found["folder"])
    if home_of(bound, key) is None:  # the Project's own folder, so its tasks find the others
        bind_device_workspace(
            ctx.engine, ctx.workspace,
            DeviceWorkspace(key, device_id, found["folder"], "workspace"), keep_label=True,
        )  # fmt: skip
    made = bind_device_workspace(
        ctx.engine, ctx.workspace, DeviceWorkspace(key, target_device_id, path, label)
    )
    return {
        "projectKey": made.project_key,
        "deviceId": made.device_id,
        "workspacePath": made.workspace_path,
        "label": made.label,
    }
