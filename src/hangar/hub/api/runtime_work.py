"""``/api/runtime-work``: the devices' LocalTasks, read and managed through their executors.

The hub validates the request, forwards it to the device's executor (RW-063, RW-158) and
groups lightly (RW-030); it stores nothing about runtime tasks (RW-002, RW-159). RPCs the
executor does not implement answer 501 ``not_supported``.
"""

from __future__ import annotations

import logging
import math
from typing import Annotated, Any, Literal

import msgspec
from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from hangar.errors import HangarError, UsageError
from hangar.hub.api.bodies import body_schema, json_body
from hangar.hub.context import Hub, HubContext
from hangar.hub.copy_targets import bound_directories
from hangar.hub.executor_link import RpcNotSupported
from hangar.hub.fanout import Pending, begin, fan_out, mapped
from hangar.hub.fresh_shared import FreshShared
from hangar.hub.runtime_work import DeviceInfo, archived_view, group_tasks, result_project_id
from hangar.protocol import methods as m
from hangar.protocol import tasks as rpc
from hangar.protocol.codec import Wire, to_json
from hangar.protocol.tasks import Id, ProjectKey, Query, SearchLimit
from hangar.protocol.turns import Activity, ActivityRequest


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


# -- request bodies: the executor's requests plus the device they go to ----------------------
class TaskAddress(rpc.TaskRef, kw_only=True):
    device_id: Id


class DeviceTranscriptRequest(rpc.TranscriptRequest, kw_only=True):
    device_id: Id


class DeviceRenameRequest(rpc.RenameRequest, kw_only=True):
    device_id: Id


class HubSearchRequest(Wire):
    query: Query
    limit: SearchLimit = rpc.DEFAULT_SEARCH_LIMIT
    include_archived: bool = False
    project_id: ProjectKey | None = None
    """A Project id of ``GET /api/runtime-work`` (not a device path)."""
    order: rpc.SearchOrder = "date"
    runtime: rpc.Runtime | None = None
    updated_after: rpc.Timestamp | None = None
    updated_before: rpc.Timestamp | None = None


class DeviceArchivedList(Wire):
    device_id: Id | None = None


class DeviceArchiveProject(Wire):
    device_id: Id
    project_id: ProjectKey


class ArchiveAll(Wire):
    device_id: Id | None = None
    kind: Literal["chat", "all"] = "chat"
    """``chat``: every Conversation; ``all``: every unarchived task."""


class TaskAddresses(Wire):
    items: Annotated[list[TaskAddress], msgspec.Meta(min_length=1, max_length=500)]


ArchiveAllBody = Annotated[ArchiveAll, json_body(ArchiveAll)]
DeviceArchiveProjectBody = Annotated[DeviceArchiveProject, json_body(DeviceArchiveProject)]
DeviceArchivedListBody = Annotated[DeviceArchivedList, json_body(DeviceArchivedList)]
DeviceRenameRequestBody = Annotated[DeviceRenameRequest, json_body(DeviceRenameRequest)]
DeviceTranscriptRequestBody = Annotated[DeviceTranscriptRequest, json_body(DeviceTranscriptRequest)]
HubSearchRequestBody = Annotated[HubSearchRequest, json_body(HubSearchRequest)]
TaskAddressBody = Annotated[TaskAddress, json_body(TaskAddress)]
TaskAddressesBody = Annotated[TaskAddresses, json_body(TaskAddresses)]


def _tasks_of(ctx: HubContext, device_id: str, include_archived: bool) -> list[dict[str, Any]]:
    request = rpc.ListTasks(include_archived=include_archived)
    result: rpc.TaskList = ctx.devices.link(device_id).call(m.TASKS_LIST.name, request)
    tasks: list[dict[str, Any]] = to_json(result.tasks)
    return [{**t, "deviceId": t.get("deviceId") or device_id} for t in tasks]


def _changed(ctx: HubContext, device_id: str, local_task_ids: list[str]) -> None:
    ctx.events.publish(RUNTIME_CHANGED, {"deviceId": device_id, "localTaskIds": local_task_ids})


@router.get("", summary="Devices, Projects with their tasks, and Conversations")
async def runtime_work_route(ctx: Hub) -> Response:
    # async: the shared read runs on a worker thread only for the caller that starts it;
    # the others wait on the event loop (no thread hop each).
    _, encoded = await _shared_view(ctx).aget()
    return Response(encoded, media_type="application/json")


def runtime_work(ctx: HubContext) -> dict[str, Any]:
    """The ``GET /api/runtime-work`` body (also rendered by the web UI's sidebar); shared
    between requests while no device's list changed, so it must not be mutated."""
    return _runtime_view(ctx)[0]


def _runtime_view(ctx: HubContext) -> tuple[dict[str, Any], bytes]:
    return _shared_view(ctx).get()


def _shared_view(ctx: HubContext) -> FreshShared[tuple[dict[str, Any], bytes]]:
    return ctx.runtime_view.fresh(lambda: _read_runtime_view(ctx))


def _read_runtime_view(ctx: HubContext) -> tuple[dict[str, Any], bytes]:
    def fetch(device_id: str, revision: int | None) -> Pending:
        request = rpc.ListTasks(if_revision=revision)
        return begin(ctx.devices.link(device_id), m.TASKS_LIST.name, request)

    def marks(device_id: str) -> Pending:
        started = begin(ctx.devices.link(device_id), m.TASKS_ACTIVITY.name, ActivityRequest())
        return mapped(started, _activity_marks)

    devices = ctx.all_devices()
    online = [d for d in devices if d.state != "offline"]
    offline = [d for d in devices if d.state == "offline"]
    bound = tuple(bound_directories(ctx))
    return ctx.runtime_view.body(online, fetch, ctx.fanout_timeout, offline, marks, bound)


def _activity_marks(found: Activity) -> dict[str, dict[str, Any]]:
    """Tasks that are replying or wait for an approval (the sidebar shows both); a task
    without either gets no mark."""
    marks: dict[str, dict[str, Any]] = {}
    for turn in found.turns:
        if turn.status == "running":
            marks.setdefault(turn.local_task_id, {"replying": True, "pendingApprovals": 0})
    for approval in found.approvals:
        mark = marks.setdefault(approval.local_task_id, {"replying": True, "pendingApprovals": 0})
        mark["pendingApprovals"] += 1
    return marks


@router.get(
    "/export",
    summary="A task's whole transcript as Markdown or one self-contained HTML page, redacted",
    response_class=Response,
)
def export_route(
    ctx: Hub,
    deviceId: Id,
    localTaskId: Id,
    format: Literal["md", "html"] = "md",
) -> Response:
    from hangar.presentation.export import collect_messages, export_filename, export_transcript

    def fetch(cursor: str | None) -> dict[str, Any]:
        body = DeviceTranscriptRequest(
            device_id=deviceId, local_task_id=localTaskId, limit=500, before_cursor=cursor
        )
        return transcript(body, ctx)

    task, messages = collect_messages(fetch)
    media = "text/html" if format == "html" else "text/markdown"
    name = export_filename(task, format)
    return Response(
        export_transcript(format, task, messages),
        media_type=f"{media}; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@router.post(
    "/transcript",
    summary="One page of a task's normalized transcript",
    openapi_extra=body_schema(DeviceTranscriptRequest),
)
def transcript_route(
    body: DeviceTranscriptRequestBody,
    ctx: Hub,
) -> FastJSONResponse:
    return FastJSONResponse(transcript(body, ctx))


def transcript(body: DeviceTranscriptRequest, ctx: HubContext) -> dict[str, Any]:
    """One transcript page from the task's device (also rendered by the web UI)."""
    request = rpc.TranscriptRequest(
        local_task_id=body.local_task_id,
        limit=body.limit,
        before_cursor=body.before_cursor,
        refresh=body.refresh,
        around_client_user_message_id=body.around_client_user_message_id,
    )
    page = ctx.devices.link(body.device_id).call(m.TASKS_TRANSCRIPT.name, request)
    return {"deviceId": body.device_id, **to_json(page)}


def first_look(body: DeviceTranscriptRequest, ctx: HubContext) -> dict[str, Any]:
    """What the web UI shows first of a task (``runtime.tasks.glance``: the exact first page,
    or the file's last turns with ``settled: false`` while the device has not read it); a
    device whose executor predates it answers with its first page."""
    request = rpc.GlanceRequest(local_task_id=body.local_task_id, limit=body.limit)
    try:
        page = ctx.devices.link(body.device_id).call(m.TASKS_GLANCE.name, request)
    except RpcNotSupported:
        return transcript(body, ctx)
    return {"deviceId": body.device_id, **to_json(page)}


@router.post(
    "/search",
    summary="Search task titles and transcripts on every online device",
    openapi_extra=body_schema(HubSearchRequest),
)
def search(body: HubSearchRequestBody, ctx: Hub) -> dict[str, Any]:
    request = rpc.SearchRequest(
        query=body.query,
        limit=body.limit,
        include_archived=body.include_archived,
        order=body.order,
        runtime=body.runtime,
        updated_after=body.updated_after,
        updated_before=body.updated_before,
    )
    results: list[dict[str, Any]] = []
    errors: list[dict[str, str]] = []
    unsupported = 0
    infos = ctx.device_infos()  # online and busy devices only (RW-049)

    def ask(info: DeviceInfo) -> Pending:
        return begin(ctx.devices.link(info.device_id), m.TASKS_SEARCH.name, request)

    answers = fan_out(
        infos, ask, ctx.fanout_timeout, lambda i: i.device_id, method=m.TASKS_SEARCH.name
    )
    for info, found in zip(infos, answers, strict=True):
        if isinstance(found, RpcNotSupported):
            unsupported += 1
            continue
        if isinstance(found, HangarError):  # late or gone: contributes nothing, is named
            errors.append({"deviceId": info.device_id, "code": found.code, "message": str(found)})
            continue
        for item in to_json(found.results):
            results.append({**item, "deviceId": info.device_id, "deviceName": info.name})
    if infos and unsupported == len(infos):
        raise RpcNotSupported(method=m.TASKS_SEARCH.name)
    if body.project_id:
        results = [r for r in results if result_project_id(r) == body.project_id]
    results.sort(key=lambda r: str(r.get("updatedAt") or ""), reverse=True)
    if body.order == "relevance":  # stable: equal scores stay newest first
        results.sort(key=lambda r: r["score"] if isinstance(r.get("score"), float) else math.inf)
    return {"results": results[: body.limit], "errors": errors}


@router.post("/rename", summary="Rename a task", openapi_extra=body_schema(DeviceRenameRequest))
def rename(body: DeviceRenameRequestBody, ctx: Hub) -> dict[str, Any]:
    request = rpc.RenameRequest(local_task_id=body.local_task_id, title=body.title)
    result = ctx.devices.link(body.device_id).call(m.TASKS_RENAME.name, request)
    _changed(ctx, body.device_id, [body.local_task_id])
    return dict(to_json(result))


archived = APIRouter(
    prefix="/api/runtime-work/archived-conversations",
    tags=["runtime-work"],
    default_response_class=FastJSONResponse,
)


def _one(ctx: HubContext, method: str, address: TaskAddress) -> dict[str, Any]:
    request = rpc.TaskRef(local_task_id=address.local_task_id)
    result = ctx.devices.link(address.device_id).call(method, request)
    _changed(ctx, address.device_id, [address.local_task_id])
    return dict(to_json(result))


@archived.post(
    "/list",
    summary="Archived tasks with per-Project counts",
    openapi_extra=body_schema(DeviceArchivedList),
)
def archived_list(body: DeviceArchivedListBody, ctx: Hub) -> dict[str, Any]:
    """The executors' archive lists (RW-164/167), merged; ``projectId`` as in the main list."""
    return archived_view_of(ctx, body.device_id)


def archived_view_of(ctx: HubContext, device_id: str | None) -> dict[str, Any]:
    """The merged archive view of one device, or of every online device (also rendered by
    the web UI's archive page)."""
    device_ids = [device_id] if device_id else [i.device_id for i in ctx.device_infos()]
    tasks: list[dict[str, Any]] = []
    for device_id in device_ids:
        link = ctx.devices.link(device_id)
        try:
            reply = link.call(m.TASKS_ARCHIVED_LIST.name, rpc.ArchivedListRequest())
            items = reply.get("items", [])
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


_ADDRESS = body_schema(TaskAddress)


@archived.post("/archive", summary="Archive one task", openapi_extra=_ADDRESS)
def archive(body: TaskAddressBody, ctx: Hub) -> dict[str, Any]:
    return _one(ctx, m.TASKS_ARCHIVE.name, body)


@archived.post("/unarchive", summary="Unarchive one task", openapi_extra=_ADDRESS)
def unarchive(body: TaskAddressBody, ctx: Hub) -> dict[str, Any]:
    return _one(ctx, m.TASKS_UNARCHIVE.name, body)


@archived.post(
    "/delete", summary="Delete one archived task (two-phase, recoverable)", openapi_extra=_ADDRESS
)
def delete(body: TaskAddressBody, ctx: Hub) -> dict[str, Any]:
    return _one(ctx, m.TASKS_DELETE.name, body)


def _archive_many(ctx: HubContext, device_id: str, ids: list[str]) -> dict[str, Any]:
    link = ctx.devices.link(device_id)
    done: list[str] = []
    for local_task_id in ids:
        link.call(m.TASKS_ARCHIVE.name, rpc.TaskRef(local_task_id=local_task_id))
        done.append(local_task_id)
    if done:
        _changed(ctx, device_id, done)
    return {"archived": len(done), "localTaskIds": done}


@archived.post(
    "/archive-project",
    summary="Archive every task of one Project",
    openapi_extra=body_schema(DeviceArchiveProject),
)
def archive_project(body: DeviceArchiveProjectBody, ctx: Hub) -> dict[str, Any]:
    view = group_tasks(
        [i for i in ctx.device_infos() if i.device_id == body.device_id],
        {body.device_id: _tasks_of(ctx, body.device_id, include_archived=False)},
    )
    project = next((p for p in view["projects"] if p["projectId"] == body.project_id), None)
    if project is None:
        raise UsageError(f"no Project {body.project_id!r} on device {body.device_id!r}")
    return _archive_many(ctx, body.device_id, [t["localTaskId"] for t in project["tasks"]])


@archived.post(
    "/archive-all",
    summary="Archive every Conversation (kind=chat) or every task",
    openapi_extra=body_schema(ArchiveAll),
)
def archive_all(body: ArchiveAllBody, ctx: Hub) -> dict[str, Any]:
    device_ids = [body.device_id] if body.device_id else [i.device_id for i in ctx.device_infos()]
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


_TASK_LIST = body_schema(TaskAddresses)


@archived.post(
    "/delete-bulk",
    summary="Delete several archived tasks (in small batches)",
    openapi_extra=_TASK_LIST,
)
def delete_bulk(body: TaskAddressesBody, ctx: Hub) -> dict[str, Any]:
    replies: list[dict[str, Any]] = []
    deleted = 0
    for device_id, ids in _by_device(body.items).items():
        link = ctx.devices.link(device_id)
        for start in range(0, len(ids), BULK_BATCH):
            batch = ids[start : start + BULK_BATCH]
            reply = link.call(m.TASKS_DELETE_BULK.name, rpc.DeleteBulkRequest(local_task_ids=batch))
            replies.append({"deviceId": device_id, "localTaskIds": batch, **to_json(reply)})
            deleted += len(batch) if reply.deleted else 0
        _changed(ctx, device_id, ids)
    return {"batches": replies, "deleted": deleted}


def _by_device(items: list[TaskAddress]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for item in items:
        grouped.setdefault(item.device_id, []).append(item.local_task_id)
    return grouped


@archived.post(
    "/cleanup-preview",
    summary="What cleanup would remove for these archived tasks",
    openapi_extra=_TASK_LIST,
)
def cleanup_preview(body: TaskAddressesBody, ctx: Hub) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    for device_id, ids in _by_device(body.items).items():
        request = rpc.TaskIdsRequest(local_task_ids=ids)
        result = ctx.devices.link(device_id).call(m.TASKS_CLEANUP_PREVIEW.name, request)
        out.append({"deviceId": device_id, **result})
    return {"devices": out}


@archived.post(
    "/cleanup", summary="Remove leftover files of these archived tasks", openapi_extra=_TASK_LIST
)
def cleanup(body: TaskAddressesBody, ctx: Hub) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    for device_id, ids in _by_device(body.items).items():
        request = rpc.TaskIdsRequest(local_task_ids=ids)
        result = ctx.devices.link(device_id).call(m.TASKS_CLEANUP.name, request)
        out.append({"deviceId": device_id, **result})
        _changed(ctx, device_id, ids)
    return {"devices": out}
