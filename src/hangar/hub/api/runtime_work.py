"""``/api/runtime-work``: the devices' LocalTasks, read and managed through their executors.

The hub validates the request, forwards it to the device's executor (RW-063, RW-158) and
groups lightly (RW-030); it stores nothing about runtime tasks (RW-002, RW-159). RPCs the
executor does not implement answer 501 ``not_supported``.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec
from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from hangar.errors import HangarError, UsageError, shown
from hangar.hub.api.limits import MAX_ID_CHARS, MAX_PROJECT_ID_CHARS
from hangar.hub.context import Hub, HubContext
from hangar.hub.executor_link import RpcNotSupported
from hangar.hub.runtime_work import archived_view, group_tasks, result_project_id


class FastJSONResponse(JSONResponse):
    """JSON via msgspec: transcript pages are large nested dicts, and FastAPI's generic
    encoder would dominate the time of a cached page."""

    def render(self, content: Any) -> bytes:
        return msgspec.json.encode(content)


log = logging.getLogger("hangar.hub")
router = APIRouter(
    prefix="/api/runtime-work", tags=["runtime-work"], default_response_class=FastJSONResponse
)

RUNTIME_CHANGED = "runtime.changed"


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TaskAddress(_Body):
    deviceId: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    localTaskId: str = Field(min_length=1, max_length=MAX_ID_CHARS)


class TranscriptRequest(TaskAddress):
    limit: int = Field(default=50, ge=1, le=500)
    beforeCursor: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    refresh: bool = False


class SearchRequest(_Body):
    query: str = Field(min_length=1, max_length=500)
    limit: int = Field(default=20, ge=1, le=100)
    includeArchived: bool = False
    projectId: str | None = Field(default=None, max_length=MAX_PROJECT_ID_CHARS)


class RenameRequest(TaskAddress):
    title: str = Field(min_length=1, max_length=500)


class ArchivedListRequest(_Body):
    deviceId: str | None = Field(default=None, max_length=MAX_ID_CHARS)


class ArchiveProjectRequest(_Body):
    deviceId: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    projectId: str = Field(min_length=1, max_length=MAX_PROJECT_ID_CHARS)


class ArchiveAllRequest(_Body):
    deviceId: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    kind: str = Field(default="chat", pattern="^(chat|all)$")
    """``chat``: every Conversation; ``all``: every unarchived task."""


class TaskList(_Body):
    items: list[TaskAddress] = Field(min_length=1, max_length=500)


def _tasks_of(ctx: HubContext, device_id: str, include_archived: bool) -> list[dict[str, Any]]:
    payload = {"includeArchived": True} if include_archived else {}
    result = ctx.devices.link(device_id).call("runtime.tasks.list", payload)
    tasks = result.get("tasks", [])
    return [{**t, "deviceId": t.get("deviceId") or device_id} for t in tasks]


def _changed(ctx: HubContext, device_id: str, local_task_ids: list[str]) -> None:
    ctx.events.publish(RUNTIME_CHANGED, {"deviceId": device_id, "localTaskIds": local_task_ids})


@router.get("", summary="Devices, Projects with their tasks, and Conversations")
def runtime_work_route(ctx: Hub) -> FastJSONResponse:
    return FastJSONResponse(runtime_work(ctx))


def runtime_work(ctx: HubContext) -> dict[str, Any]:
    """The ``GET /api/runtime-work`` body (also rendered by the web UI's sidebar)."""
    infos = ctx.device_infos()
    tasks: dict[str, list[dict[str, Any]]] = {}
    errors: list[dict[str, str]] = []
    for info in infos:
        try:
            tasks[info.device_id] = _tasks_of(ctx, info.device_id, include_archived=False)
        except HangarError as exc:  # one failing device must not hide the others
            errors.append({"deviceId": info.device_id, "code": exc.code, "message": str(exc)})
    body = group_tasks(infos, tasks)
    body["errors"] = errors
    return body


@router.post("/transcript", summary="One page of a task's normalized transcript")
def transcript_route(body: TranscriptRequest, ctx: Hub) -> FastJSONResponse:
    return FastJSONResponse(transcript(body, ctx))


def transcript(body: TranscriptRequest, ctx: HubContext) -> dict[str, Any]:
    """One transcript page from the task's device (also rendered by the web UI)."""
    payload: dict[str, Any] = {"localTaskId": body.localTaskId, "limit": body.limit}
    if body.beforeCursor is not None:
        payload["beforeCursor"] = body.beforeCursor
    if body.refresh:
        payload["refresh"] = True
    result = ctx.devices.link(body.deviceId).call("runtime.tasks.transcript", payload)
    return {"deviceId": body.deviceId, **result}


@router.post("/search", summary="Search task titles and transcripts on every online device")
def search(body: SearchRequest, ctx: Hub) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "query": body.query,
        "limit": body.limit,
        "includeArchived": body.includeArchived,
    }
    results: list[dict[str, Any]] = []
    unsupported = 0
    infos = ctx.device_infos()
    for info in infos:
        try:
            found = ctx.devices.link(info.device_id).call("runtime.tasks.search", payload)
        except RpcNotSupported:
            unsupported += 1
            continue
        for item in found.get("results", []):
            results.append({"deviceId": info.device_id, "deviceName": info.name, **item})
    if infos and unsupported == len(infos):
        raise RpcNotSupported(method="runtime.tasks.search")
    if body.projectId:
        results = [r for r in results if result_project_id(r) == body.projectId]
    results.sort(key=lambda r: str(r.get("updatedAt") or ""), reverse=True)
    return {"results": results[: body.limit]}


@router.post("/rename", summary="Rename a task")
def rename(body: RenameRequest, ctx: Hub) -> dict[str, Any]:
    payload = {"localTaskId": body.localTaskId, "title": body.title}
    result = ctx.devices.link(body.deviceId).call("runtime.tasks.rename", payload)
    _changed(ctx, body.deviceId, [body.localTaskId])
    return result


archived = APIRouter(
    prefix="/api/runtime-work/archived-conversations",
    tags=["runtime-work"],
    default_response_class=FastJSONResponse,
)


def _one(ctx: HubContext, method: str, address: TaskAddress) -> dict[str, Any]:
    result = ctx.devices.link(address.deviceId).call(method, {"localTaskId": address.localTaskId})
    _changed(ctx, address.deviceId, [address.localTaskId])
    return result


@archived.post("/list", summary="Archived tasks with per-Project counts")
def archived_list(body: ArchivedListRequest, ctx: Hub) -> dict[str, Any]:
    """The executors' archive lists (RW-164/167), merged; ``projectId`` as in the main list."""
    device_ids = [body.deviceId] if body.deviceId else [i.device_id for i in ctx.device_infos()]
    tasks: list[dict[str, Any]] = []
    for device_id in device_ids:
        link = ctx.devices.link(device_id)
        try:
            items = link.call("runtime.tasks.archived_list", {}).get("items", [])
        except RpcNotSupported:
            tasks.extend(_tasks_of(ctx, device_id, include_archived=True))
            continue
        for item in items:
            tasks.append(
                {
                    **item,
                    "deviceId": item.get("deviceId") or device_id,
                    "archived": True,
                    "groupWorkspacePath": item.get("projectKey") or "",
                }
            )
    return archived_view(tasks)


@archived.post("/archive", summary="Archive one task")
def archive(body: TaskAddress, ctx: Hub) -> dict[str, Any]:
    return _one(ctx, "runtime.tasks.archive", body)


@archived.post("/unarchive", summary="Unarchive one task")
def unarchive(body: TaskAddress, ctx: Hub) -> dict[str, Any]:
    return _one(ctx, "runtime.tasks.unarchive", body)


@archived.post("/delete", summary="Delete one archived task (two-phase, recoverable)")
def delete(body: TaskAddress, ctx: Hub) -> dict[str, Any]:
    return _one(ctx, "runtime.tasks.delete", body)


def _archive_many(ctx: HubContext, device_id: str, ids: list[str]) -> dict[str, Any]:
    link = ctx.devices.link(device_id)
    done: list[str] = []
    for local_task_id in ids:
        link.call("runtime.tasks.archive", {"localTaskId": local_task_id})
        done.append(local_task_id)
    if done:
        _changed(ctx, device_id, done)
    return {"archived": len(done), "localTaskIds": done}


@archived.post("/archive-project", summary="Archive every task of one Project")
def archive_project(body: ArchiveProjectRequest, ctx: Hub) -> dict[str, Any]:
    view = group_tasks(
        [i for i in ctx.device_infos() if i.device_id == body.deviceId],
        {body.deviceId: _tasks_of(ctx, body.deviceId, include_archived=False)},
    )
    project = next((p for p in view["projects"] if p["projectId"] == body.projectId), None)
    if project is None:
        raise UsageError(f"no Project {shown(body.projectId)!r} on device {shown(body.deviceId)!r}")
    return _archive_many(ctx, body.deviceId, [t["localTaskId"] for t in project["tasks"]])


@archived.post("/archive-all", summary="Archive every Conversation (kind=chat) or every task")
def archive_all(body: ArchiveAllRequest, ctx: Hub) -> dict[str, Any]:
    device_ids = [body.deviceId] if body.deviceId else [i.device_id for i in ctx.device_infos()]
    total: list[str] = []
    for device_id in device_ids:
        view = group_tasks(
            [i for i in ctx.device_infos() if i.device_id == device_id],
            {device_id: _tasks_of(ctx, device_id, include_archived=False)},
        )
        tasks = list(view["conversations"])
        if body.kind == "all":
            tasks += [t for p in view["projects"] for t in p["tasks"]]
        total += _archive_many(ctx, device_id, [t["localTaskId"] for t in tasks])["localTaskIds"]
    return {"archived": len(total), "localTaskIds": total}


BULK_BATCH = 50
"""Ids per ``runtime.tasks.delete_bulk`` call: bulk deletes go in small batches (RW-177)."""


@archived.post("/delete-bulk", summary="Delete several archived tasks (in small batches)")
def delete_bulk(body: TaskList, ctx: Hub) -> dict[str, Any]:
    replies: list[dict[str, Any]] = []
    deleted = 0
    for device_id, ids in _by_device(body.items).items():
        link = ctx.devices.link(device_id)
        for start in range(0, len(ids), BULK_BATCH):
            batch = ids[start : start + BULK_BATCH]
            reply = link.call("runtime.tasks.delete_bulk", {"localTaskIds": batch})
            replies.append({"deviceId": device_id, "localTaskIds": batch, **reply})
            deleted += len(batch) if reply.get("deleted") else 0
        _changed(ctx, device_id, ids)
    return {"batches": replies, "deleted": deleted}


def _by_device(items: list[TaskAddress]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for item in items:
        grouped.setdefault(item.deviceId, []).append(item.localTaskId)
    return grouped


@archived.post("/cleanup-preview", summary="What cleanup would remove for these archived tasks")
def cleanup_preview(body: TaskList, ctx: Hub) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    for device_id, ids in _by_device(body.items).items():
        result = ctx.devices.link(device_id).call(
            "runtime.tasks.cleanup_preview", {"localTaskIds": ids}
        )
        out.append({"deviceId": device_id, **result})
    return {"devices": out}


@archived.post("/cleanup", summary="Remove leftover files of these archived tasks")
def cleanup(body: TaskList, ctx: Hub) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    for device_id, ids in _by_device(body.items).items():
        result = ctx.devices.link(device_id).call("runtime.tasks.cleanup", {"localTaskIds": ids})
        out.append({"deviceId": device_id, **result})
        _changed(ctx, device_id, ids)
    return {"devices": out}
