"""``/api/runtime-work/worktrees/*``: each device's worktree store, through its executor.

The hub checks the shape of a request and forwards it to ``runtime.worktrees.*`` on the named
device; worktree settings and records stay on the device (RW-190/191), so nothing here is
stored. Deleting a worktree archives its tasks, so it publishes ``runtime.changed``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from hangar.errors import HangarError, UsageError
from hangar.hub.context import Hub, HubContext
from hangar.hub.routes_runtime_work import RUNTIME_CHANGED, FastJSONResponse

router = APIRouter(
    prefix="/api/runtime-work/worktrees",
    tags=["runtime-work"],
    default_response_class=FastJSONResponse,
)

_PATH = 4096


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OnDevice(_Body):
    deviceId: str = Field(min_length=1, max_length=200)


class SettingsUpdate(OnDevice):
    root: str | None = Field(default=None, max_length=_PATH)
    """Empty for the default (``worktrees`` under the executor's home)."""
    autoCleanup: bool | None = None
    keepCount: int | None = Field(default=None, ge=0, le=10_000)


class Prepare(OnDevice):
    sourcePath: str = Field(min_length=1, max_length=_PATH)
    worktreeId: str = Field(min_length=1, max_length=64)
    branch: str | None = Field(default=None, min_length=1, max_length=255)
    permanent: bool = False


class WorktreeAddress(OnDevice):
    worktreeId: str | None = Field(default=None, min_length=1, max_length=64)
    path: str | None = Field(default=None, min_length=1, max_length=_PATH)


class ListRequest(_Body):
    deviceId: str | None = Field(default=None, min_length=1, max_length=200)


def _call(ctx: HubContext, device_id: str, method: str, payload: dict[str, Any]) -> dict[str, Any]:
    return ctx.devices.link(device_id).call(method, payload)


def _address(body: WorktreeAddress) -> dict[str, Any]:
    if (body.worktreeId is None) == (body.path is None):
        raise UsageError("give exactly one of worktreeId and path")
    return {"worktreeId": body.worktreeId} if body.worktreeId else {"path": body.path}


@router.post("/settings/get", summary="A device's worktree settings")
def settings_get(body: OnDevice, ctx: Hub) -> dict[str, Any]:
    return _call(ctx, body.deviceId, "runtime.worktrees.settings.get", {})


@router.post("/settings/update", summary="Change a device's worktree settings (then prune)")
def settings_update(body: SettingsUpdate, ctx: Hub) -> dict[str, Any]:
    payload = body.model_dump(exclude={"deviceId"}, exclude_none=True)
    return _call(ctx, body.deviceId, "runtime.worktrees.settings.update", payload)


@router.post("/prepare", summary="Create a worktree of a project on a device")
def prepare(body: Prepare, ctx: Hub) -> dict[str, Any]:
    payload = body.model_dump(exclude={"deviceId"}, exclude_none=True)
    return _call(ctx, body.deviceId, "runtime.worktrees.prepare", payload)


@router.post("/list", summary="Worktrees by repository, with their tasks, per device")
def list_worktrees(body: ListRequest, ctx: Hub) -> dict[str, Any]:
    infos = [i for i in ctx.device_infos() if body.deviceId in (None, i.device_id)]
    if body.deviceId is not None and not infos:
        ctx.devices.link(body.deviceId)  # raises device_unavailable
    devices: list[dict[str, Any]] = []
    for info in infos:
        entry: dict[str, Any] = {"deviceId": info.device_id, "deviceName": info.name}
        try:
            entry.update(_call(ctx, info.device_id, "runtime.worktrees.list", {}))
        except HangarError as exc:  # one failing device must not hide the others
            entry["error"] = {"code": exc.code, "message": str(exc)}
        devices.append(entry)
    return {"devices": devices}


@router.post("/delete", summary="Archive a worktree's tasks, snapshot it, then remove it")
def delete(body: WorktreeAddress, ctx: Hub) -> dict[str, Any]:
    result = _call(ctx, body.deviceId, "runtime.worktrees.delete", _address(body))
    archived = result.get("archivedTaskIds") or []
    if archived:
        ctx.events.publish(RUNTIME_CHANGED, {"deviceId": body.deviceId, "localTaskIds": archived})
    return result


@router.post("/restore", summary="Recreate a removed worktree from its snapshot")
def restore(body: WorktreeAddress, ctx: Hub) -> dict[str, Any]:
    return _call(ctx, body.deviceId, "runtime.worktrees.restore", _address(body))


@router.post(
    "/prune", summary="Remove least-recently-used archived worktrees beyond the keep count"
)
def prune(body: OnDevice, ctx: Hub) -> dict[str, Any]:
    return _call(ctx, body.deviceId, "runtime.worktrees.prune", {})
