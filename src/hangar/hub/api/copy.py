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
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter

from hangar.errors import UsageError
from hangar.hub.api.bodies import body_schema, json_body
from hangar.hub.api.runtime_work import FastJSONResponse
from hangar.hub.context import Hub
from hangar.hub.transfers import copy_across
from hangar.protocol import copy as cp
from hangar.protocol import methods as m
from hangar.protocol.codec import to_json
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


DeviceCopyBody = Annotated[DeviceCopy, json_body(DeviceCopy)]


@router.post(
    "/copy", summary="Copy a task through a completed turn", openapi_extra=body_schema(DeviceCopy)
)
def copy(body: DeviceCopyBody, ctx: Hub) -> dict[str, Any]:
    if body.target_device_id is not None or body.target_workspace_path is not None:
        if body.target_device_id is None or body.target_workspace_path is None:
            raise UsageError("a copy to another device names targetDeviceId and its project's "
                             "targetWorkspacePath")  # fmt: skip
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
