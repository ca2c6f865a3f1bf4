"""``/api/runtime-work/worktrees/*``: each device's worktree store, through its executor.

The hub decodes a body once (the executor's request plus the device it goes to) and forwards
it to ``runtime.worktrees.*`` on that device; worktree settings and records stay on the device
(RW-190/191), so nothing here is stored. Deleting a worktree archives its tasks, and a
permanent worktree is a project of its own, so both publish ``runtime.changed``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter

from hangar.errors import HangarError
from hangar.hub.api.bodies import body_schema, json_body
from hangar.hub.api.runtime_work import RUNTIME_CHANGED, FastJSONResponse
from hangar.hub.context import Hub, HubContext
from hangar.protocol import methods as m
from hangar.protocol import worktrees as w
from hangar.protocol.codec import Wire
from hangar.protocol.tasks import Id, NoArguments

router = APIRouter(
    prefix="/api/runtime-work/worktrees",
    tags=["runtime-work"],
    default_response_class=FastJSONResponse,
)


class OnDevice(Wire):
    device_id: Id


class DeviceSettingsUpdate(w.WorktreeSettingsUpdate, kw_only=True):
    device_id: Id


class DevicePrepare(w.PrepareWorktree, kw_only=True):
    device_id: Id


class DeviceWorktreeRef(w.WorktreeRef, kw_only=True):
    device_id: Id


class ListWorktrees(Wire):
    device_id: Id | None = None
    """One device, or every online device."""


OnDeviceBody = Annotated[OnDevice, json_body(OnDevice)]
DeviceSettingsUpdateBody = Annotated[DeviceSettingsUpdate, json_body(DeviceSettingsUpdate)]
DevicePrepareBody = Annotated[DevicePrepare, json_body(DevicePrepare)]
DeviceWorktreeRefBody = Annotated[DeviceWorktreeRef, json_body(DeviceWorktreeRef)]
ListWorktreesBody = Annotated[ListWorktrees, json_body(ListWorktrees)]


def _call(ctx: HubContext, device_id: str, method: str, request: Any) -> dict[str, Any]:
    result: dict[str, Any] = ctx.devices.link(device_id).call(method, request)
    return result


def _ref(body: DeviceWorktreeRef) -> w.WorktreeRef:
    return w.WorktreeRef(worktree_id=body.worktree_id, path=body.path)


@router.post(
    "/settings/get", summary="A device's worktree settings", openapi_extra=body_schema(OnDevice)
)
def settings_get(body: OnDeviceBody, ctx: Hub) -> dict[str, Any]:
    return _call(ctx, body.device_id, m.WORKTREES_SETTINGS_GET.name, NoArguments())


@router.post(
    "/settings/update",
    summary="Change a device's worktree settings (then prune)",
    openapi_extra=body_schema(DeviceSettingsUpdate),
)
def settings_update(body: DeviceSettingsUpdateBody, ctx: Hub) -> dict[str, Any]:
    request = w.WorktreeSettingsUpdate(
        root=body.root, auto_cleanup=body.auto_cleanup, keep_count=body.keep_count
    )
    return _call(ctx, body.device_id, m.WORKTREES_SETTINGS_UPDATE.name, request)


@router.post(
    "/prepare",
    summary="Create a worktree of a project on a device",
    openapi_extra=body_schema(DevicePrepare),
)
def prepare(body: DevicePrepareBody, ctx: Hub) -> dict[str, Any]:
    request = w.PrepareWorktree(
        source_path=body.source_path,
        worktree_id=body.worktree_id,
        branch=body.branch,
        permanent=body.permanent,
    )
    result = _call(ctx, body.device_id, m.WORKTREES_PREPARE.name, request)
    if body.permanent:  # a project of its own from now on (RW-206): pages list it at once
        ctx.events.publish(RUNTIME_CHANGED, {"deviceId": body.device_id, "reason": "project"})
    return result


@router.post(
    "/list",
    summary="Worktrees by repository, with their tasks, per device",
    openapi_extra=body_schema(ListWorktrees),
)
def list_worktrees(body: ListWorktreesBody, ctx: Hub) -> dict[str, Any]:
    infos = [i for i in ctx.device_infos() if body.device_id in (None, i.device_id)]
    if body.device_id is not None and not infos:
        ctx.devices.link(body.device_id)  # raises device_unavailable
    devices: list[dict[str, Any]] = []
    for info in infos:
        entry: dict[str, Any] = {"deviceId": info.device_id, "deviceName": info.name}
        try:
            entry.update(_call(ctx, info.device_id, m.WORKTREES_LIST.name, NoArguments()))
        except HangarError as exc:  # one failing device must not hide the others
            entry["error"] = {"code": exc.code, "message": str(exc)}
        devices.append(entry)
    return {"devices": devices}


_REF = body_schema(DeviceWorktreeRef)


@router.post(
    "/delete",
    summary="Archive a worktree's tasks, snapshot it, then remove it",
    openapi_extra=_REF,
)
def delete(body: DeviceWorktreeRefBody, ctx: Hub) -> dict[str, Any]:
    result = _call(ctx, body.device_id, m.WORKTREES_DELETE.name, _ref(body))
    archived = result.get("archivedTaskIds") or []
    if archived:
        ctx.events.publish(RUNTIME_CHANGED, {"deviceId": body.device_id, "localTaskIds": archived})
    return result


@router.post(
    "/restore", summary="Recreate a removed worktree from its snapshot", openapi_extra=_REF
)
def restore(body: DeviceWorktreeRefBody, ctx: Hub) -> dict[str, Any]:
    return _call(ctx, body.device_id, m.WORKTREES_RESTORE.name, _ref(body))


@router.post(
    "/prune",
    summary="Remove least-recently-used archived worktrees beyond the keep count",
    openapi_extra=body_schema(OnDevice),
)
def prune(body: OnDeviceBody, ctx: Hub) -> dict[str, Any]:
    return _call(ctx, body.device_id, m.WORKTREES_PRUNE.name, NoArguments())
