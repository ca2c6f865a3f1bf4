"""Copying a task over HTTP (RW-297..318): ``POST /api/runtime-work/copy``.

``{deviceId, localTaskId, lastTurnId, newLocalTaskId}`` copies the task on its own device:
the device forks the agent's session through that completed turn (``runtime.tasks.copy``)
and the answer names the copy by ``deviceId`` + ``localTaskId`` (RW-318), which the client
opens at ``/runtime-tasks?deviceId=…&localTaskId=…``. The client generates
``newLocalTaskId`` as it does for a new task.

With ``targetDeviceId`` and ``targetWorkspacePath`` (a project the target device reports) the
copy goes to that device as a git fork (:mod:`hangar.hub.transfers`): the answer names the
copy by the target's ``deviceId`` and the new ``localTaskId``, its ``workspacePath`` is the
transfer's worktree there.

``POST /api/runtime-work/copy-targets {deviceId, localTaskId}`` lists where the task may go
(:mod:`hangar.hub.copy_targets`); ``POST /api/runtime-work/device-workspaces/prepare`` binds
a directory of an unbound online device to the task's Project first.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter

from hangar.errors import UsageError
from hangar.hub.api.bodies import body_schema, json_body
from hangar.hub.api.runtime_work import (
    RUNTIME_CHANGED,
    FastJSONResponse,
    TaskAddress,
    TaskAddressBody,
    runtime_work,
)
from hangar.hub.context import Hub
from hangar.hub.copy_targets import (
    bound_directories,
    copy_targets,
    prepare_device_workspace,
    require_copy_target,
)
from hangar.hub.store.device_workspaces import Label
from hangar.hub.transfers import copy_across
from hangar.protocol import copy as cp
from hangar.protocol import create as cr
from hangar.protocol import methods as m
from hangar.protocol.codec import Wire, to_json
from hangar.protocol.tasks import Id
from hangar.protocol.worktrees import PathText

router = APIRouter(
    prefix="/api/runtime-work", tags=["runtime-work"], default_response_class=FastJSONResponse
)


class DeviceCopy(cp.CopyTask, kw_only=True):
    device_id: Id
    target_device_id: Id | None = None
    """Another device to copy to (with ``targetWorkspacePath``, a project it reports)."""
    target_workspace_path: PathText | None = None


class PrepareDeviceWorkspace(Wire):
    device_id: Id
    """The task being copied: its device and ``localTaskId`` name the Project."""
    local_task_id: Id
    target_device_id: Id
    label: Label
    workspace_path: PathText | None = None
    """A directory the target device reports (``GET /api/runtime-work/projects``)…"""
    new_project_name: cr.ProjectName | None = None
    """…or a new blank project ``~/Documents/<name>`` it creates."""


DeviceCopyBody = Annotated[DeviceCopy, json_body(DeviceCopy)]
PrepareBody = Annotated[PrepareDeviceWorkspace, json_body(PrepareDeviceWorkspace)]


@router.post(
    "/copy-targets",
    summary="Where a task may be copied to, within its Project",
    openapi_extra=body_schema(TaskAddress),
)
def targets(body: TaskAddressBody, ctx: Hub) -> dict[str, Any]:
    return copy_targets(runtime_work(ctx), bound_directories(ctx), body.device_id,
                        body.local_task_id)  # fmt: skip


@router.post(
    "/device-workspaces/prepare",
    summary="Bind a device's directory to a task's Project (worktree or workspace)",
    openapi_extra=body_schema(PrepareDeviceWorkspace),
)
def prepare(body: PrepareBody, ctx: Hub) -> dict[str, Any]:
    made = prepare_device_workspace(
        ctx, runtime_work(ctx), body.device_id, body.local_task_id, body.target_device_id,
        body.label, body.workspace_path, body.new_project_name,
    )  # fmt: skip
    ctx.events.publish(RUNTIME_CHANGED, {"deviceId": body.target_device_id, "localTaskIds": []})
    return made


@router.post(
    "/copy", summary="Copy a task through a completed turn", openapi_extra=body_schema(DeviceCopy)
)
def copy(body: DeviceCopyBody, ctx: Hub) -> dict[str, Any]:
    if body.target_device_id is not None or body.target_workspace_path is not None:
        if body.target_device_id is None or body.target_workspace_path is None:
            raise UsageError("a copy to another device names targetDeviceId and its project's "
                             "targetWorkspacePath")  # fmt: skip
        require_copy_target(
            runtime_work(ctx), bound_directories(ctx), body.device_id, body.local_task_id,
            body.target_device_id, body.target_workspace_path,
        )  # fmt: skip
        return copy_across(
            ctx,
            body.device_id,
            body.local_task_id,
            body.last_turn_id,
            body.new_local_task_id,
            body.target_device_id,
            body.target_workspace_path,
        )
    request = cp.CopyTask(
        local_task_id=body.local_task_id,
        last_turn_id=body.last_turn_id,
        new_local_task_id=body.new_local_task_id,
    )
    result = ctx.devices.link(body.device_id).call(m.TASKS_COPY.name, request)
    return {"deviceId": body.device_id, **to_json(result)}
