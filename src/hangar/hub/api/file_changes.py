"""``/api/runtime-work/file-changes/{review,revert}``: a turn's file changes, on its device.

The card of a runtime task never goes through a central task API (RW-242): the hub forwards
the task's ``deviceId`` + ``workspacePath`` and the artifact id to the device's
``runtime.tasks.turn_file_changes_*`` command, which checks them and works in the directory
the task ran in. A revert publishes ``runtime.changed`` for the task.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter

from hangar.hub.api.bodies import body_schema, json_body
from hangar.hub.api.runtime_work import RUNTIME_CHANGED, FastJSONResponse
from hangar.hub.context import Hub
from hangar.protocol import file_changes as fc
from hangar.protocol import methods as m
from hangar.protocol.tasks import Id

router = APIRouter(
    prefix="/api/runtime-work/file-changes",
    tags=["runtime-work"],
    default_response_class=FastJSONResponse,
)


class DeviceTurnFileChanges(fc.TurnFileChanges, kw_only=True):
    device_id: Id


class DeviceRevertTurnFileChanges(fc.RevertTurnFileChanges, kw_only=True):
    device_id: Id


ReviewBody = Annotated[DeviceTurnFileChanges, json_body(DeviceTurnFileChanges)]
RevertBody = Annotated[DeviceRevertTurnFileChanges, json_body(DeviceRevertTurnFileChanges)]


@router.post(
    "/review",
    summary="A turn's file changes as a patch, with its current state",
    openapi_extra=body_schema(DeviceTurnFileChanges),
)
def review(body: ReviewBody, ctx: Hub) -> dict[str, Any]:
    request = fc.TurnFileChanges(
        local_task_id=body.local_task_id,
        workspace_path=body.workspace_path,
        artifact_id=body.artifact_id,
    )
    result: dict[str, Any] = ctx.devices.link(body.device_id).call(
        m.TURN_FILE_CHANGES_REVIEW.name, request
    )
    return result


@router.post(
    "/revert",
    summary="Revert a reviewed turn's file changes in the task's directory",
    openapi_extra=body_schema(DeviceRevertTurnFileChanges),
)
def revert(body: RevertBody, ctx: Hub) -> dict[str, Any]:
    request = fc.RevertTurnFileChanges(
        local_task_id=body.local_task_id,
        workspace_path=body.workspace_path,
        artifact_id=body.artifact_id,
        checksum=body.checksum,
    )
    result: dict[str, Any] = ctx.devices.link(body.device_id).call(
        m.TURN_FILE_CHANGES_REVERT.name, request
    )
    changed = {"deviceId": body.device_id, "localTaskIds": [body.local_task_id]}
    ctx.events.publish(RUNTIME_CHANGED, changed)
    return result
