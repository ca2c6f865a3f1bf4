"""Light grouping of the devices' LocalTasks into the runtime-work view (no storage).

The hub never reads a projects table for this (RW-003, RW-030): a Project is the display group
of ``deviceId`` + ``groupWorkspacePath`` (RW-006, RW-009), so worktree tasks fold under their
repository root (RW-036) while each task keeps its own ``workspacePath`` (RW-037, RW-041).
Tasks with ``workspaceKind == "chat"`` (or no folder at all) are Conversations (RW-015,
RW-320); there is no third "unmapped" group (RW-319). ``projectId`` is an opaque hash used only
inside the UI and for search filtering; it is never a hub id and never goes into a URL (RW-010).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

Task = dict[str, Any]


def project_id(device_id: str, group_path: str) -> str:
    """Stable opaque id of the Project ``group_path`` on ``device_id``."""
    import hashlib  # OpenSSL costs a command that never needs it a few ms

    return hashlib.sha256(f"{device_id}\0{group_path}".encode()).hexdigest()[:16]


def group_path(task: Mapping[str, Any]) -> str:
    """The Project folder of a task: its ``groupWorkspacePath``, else its ``workspacePath``."""
    return str(task.get("groupWorkspacePath") or task.get("workspacePath") or "")


def is_conversation(task: Mapping[str, Any]) -> bool:
    return task.get("workspaceKind") == "chat" or not group_path(task)


def project_name(path: str) -> str:
    trimmed = path.rstrip("/\\") or path
    return posixpath.basename(trimmed.replace("\\", "/")) or trimmed


def _updated(task: Mapping[str, Any]) -> str:
    return str(task.get("updatedAt") or "")


@dataclass(frozen=True)
class DeviceInfo:
    device_id: str
    name: str
    local: bool
    address: str | None = None
    """The address to show (see :func:`display_address`), when one is known."""
    state: str = "online"
    """``online``, ``busy`` or ``offline``."""


HIDDEN_ADDRESSES = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1", "localhost", "0.0.0.0", "::"})
"""Addresses that name the hub's own machine (a proxy or an executor beside the hub connects
from these) or no machine at all: never shown as a device's address. Every other address is a
distinct endpoint — the tests stand in other machines with 127.0.0.2, 127.0.0.3, …"""


def display_address(transfer_host: str | None, client_ip: str | None) -> str | None:
    """A remote device's address to show (RW-046): the runtime transfer host it reports, else
    the client IP its connection came from; neither when it names no other machine."""
    for candidate in (transfer_host, client_ip):
        value = (candidate or "").strip()
        if value and value.lower() not in HIDDEN_ADDRESSES:
            return value
    return None


def device_labels(devices: list[DeviceInfo]) -> dict[str, str | None]:
    """What to show after a project name per device (RW-045..047).

    One device: nothing. Several: nothing for the local device; a remote device shows its
    address, its name when no address is known, its id only as the last fallback.
    """
    if len(devices) <= 1:
        return {d.device_id: None for d in devices}
    return {d.device_id: None if d.local else (d.address or d.name or d.device_id) for d in devices}


def device_display(device: DeviceInfo) -> str:
    """The main text naming a device in the sidebar and the device picker (RW-047): a remote
    device's address, else its name, its id only as the last fallback."""
    if device.local:
        return f"{device.name or 'this device'} (this device)"
    return device.address or device.name or device.device_id


@dataclass(frozen=True)
class Bound:
    """A device's directory bound to a Project (``hangar.hub.store.device_workspaces``)."""

    device_id: str
    workspace_path: str
    label: str
    """``workspace`` or ``worktree``: preferred as the tasks' ``workspaceKind`` (RW-304)."""
    project_key: str
    """The ``projectId`` of the folder the Project was first bound from."""


def home_of(bound: Iterable[Bound], project_key: str) -> Bound | None:
    """The bound folder whose ``projectId`` is the Project's key (where it was bound from)."""
    for b in bound:
        if b.project_key == project_key == project_id(b.device_id, b.workspace_path):
            return b
    return None


def group_tasks(
    devices: list[DeviceInfo],
    tasks_by_device: Mapping[str, Iterable[Task]],
    registered: Mapping[str, Iterable[str]] | None = None,
    bound: Iterable[Bound] = (),
) -> dict[str, Any]:
    """The ``GET /api/runtime-work`` body from each online device's unarchived tasks, and
    the blank projects each registered (shown with no task yet, RW-295).

    A bound directory (``bound``) is listed as its Project's even before it has a task; its
    label is its tasks' ``workspaceKind`` (RW-304). A directory labelled ``worktree`` on the
    device the Project was bound from folds into that Project, elsewhere it carries the
    Project's name — never shown as another Project (RW-305)."""
    labels = device_labels(devices)
    projects: dict[str, dict[str, Any]] = {}
    conversations: list[Task] = []
    bindings = list(bound)
    online = {d.device_id for d in devices}
    by_folder = {(b.device_id, b.workspace_path): b for b in bindings}
    extra: dict[str, list[str]] = {}
    for b in bindings:
        if b.device_id in online:
            extra.setdefault(b.device_id, []).append(b.workspace_path)
    for device in devices:
        folders = [*(registered or {}).get(device.device_id, ()), *extra.get(device.device_id, ())]
        for path in dict.fromkeys(folders):
            pid = project_id(device.device_id, path)
            projects[pid] = {
                "projectId": pid,
                "deviceId": device.device_id,
                "workspacePath": path,
                "name": project_name(path),
                "deviceLabel": labels[device.device_id],
                "updatedAt": "",
                "tasks": [],
            }
    for device in devices:
        for task in tasks_by_device.get(device.device_id, ()):
            if task.get("archived"):
                continue
            if is_conversation(task):
                conversations.append(task)
                continue
            path = group_path(task)
            pid = project_id(device.device_id, path)
            project = projects.setdefault(
                pid,
                {
                    "projectId": pid,
                    "deviceId": device.device_id,
                    "workspacePath": path,
                    "name": project_name(path),
                    "deviceLabel": labels[device.device_id],
                    "updatedAt": "",
                    "tasks": [],
                },
            )
            project["tasks"].append(task)
            project["updatedAt"] = max(project["updatedAt"], _updated(task))
    _apply_bindings(projects, by_folder, bindings)
    for project in projects.values():
        project["tasks"].sort(key=_updated, reverse=True)
    conversations.sort(key=_updated, reverse=True)
    return {
        "devices": [
            {
                "deviceId": d.device_id,
                "name": d.name,
                "local": d.local,
                "online": d.state != "offline",
                "state": d.state,
                "address": d.address,
                "label": labels[d.device_id],
                "display": device_display(d),
            }
            for d in devices
        ],
        "projects": sorted(projects.values(), key=lambda p: p["updatedAt"], reverse=True),
        "conversations": conversations,
    }


def _apply_bindings(
    projects: dict[str, dict[str, Any]],
    by_folder: Mapping[tuple[str, str], Bound],
    bindings: list[Bound],
) -> None:
    for pid in list(projects):
        project = projects[pid]
        found = by_folder.get((project["deviceId"], project["workspacePath"]))
        if found is None:
            continue
        home = home_of(bindings, found.project_key)
        project["projectKey"] = found.project_key
        project["workspaceKind"] = found.label
        project["tasks"] = [
            {**t, "workspaceKind": found.label} if t.get("workspaceKind") != found.label else t
            for t in project["tasks"]
        ]
        if found.label != "worktree" or home is None or home is found:
            continue
        project["name"] = project_name(home.workspace_path)
        home_pid = project_id(home.device_id, home.workspace_path)
        if home.device_id == project["deviceId"] and home_pid in projects:
            del projects[pid]
            into = projects[home_pid]
            into["tasks"] += project["tasks"]
            into["updatedAt"] = max(into["updatedAt"], project["updatedAt"])


def archived_view(tasks: Iterable[Task]) -> dict[str, Any]:
    """The archive list: archived tasks with their Project, and counts per Project (RW-166/168)."""
    items: list[Task] = []
    groups: dict[str, dict[str, Any]] = {}
    for task in tasks:
        if not task.get("archived"):
            continue
        if is_conversation(task):
            pid, name = None, None
        else:
            path = group_path(task)
            pid, name = project_id(str(task.get("deviceId", "")), path), project_name(path)
            group = groups.setdefault(pid, {"projectId": pid, "projectName": name, "count": 0})
            group["count"] += 1
        items.append({**task, "projectId": pid, "projectName": name})
    items.sort(key=_updated, reverse=True)
    return {
        "items": items,
        "projectGroups": sorted(groups.values(), key=lambda g: g["projectName"]),
        "total": len(items),
    }


def result_project_id(result: Mapping[str, Any]) -> str | None:
    """The Project of a search result, derived from its address (RW-057); chats have none."""
    address = result.get("address")
    source: Mapping[str, Any] = address if isinstance(address, Mapping) else result
    merged = {**result, **source}
    if is_conversation(merged):
        return None
    return project_id(str(merged.get("deviceId", "")), group_path(merged))
