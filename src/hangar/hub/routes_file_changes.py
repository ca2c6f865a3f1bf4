"""``/api/runtime-work/file-changes/{review,revert}``: a turn's file changes, on its device.

The card of a runtime task never goes through a central task API (RW-242): the hub forwards
the task's ``deviceId`` + ``workspacePath`` and the artifact id to the device's
``runtime.tasks.turn_file_changes_*`` command, which checks them and works in the directory
the task ran in. A revert publishes ``runtime.changed`` for the task.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from hangar.hub.context import Hub
from hangar.hub.routes_runtime_work import RUNTIME_CHANGED, FastJSONResponse

router = APIRouter(
    prefix="/api/runtime-work/file-changes",
    tags=["runtime-work"],
    default_response_class=FastJSONResponse,
)


class ArtifactAddress(BaseModel):
    model_config = ConfigDict(extra="forbid")

    deviceId: str = Field(min_length=1, max_length=200)
    localTaskId: str = Field(min_length=1, max_length=200)
    workspacePath: str = Field(min_length=1, max_length=4096)
    artifactId: str = Field(min_length=1, max_length=200)


class RevertRequest(ArtifactAddress):
    checksum: str = Field(min_length=1, max_length=100)


@router.post("/review", summary="A turn's file changes as a patch, with its current state")
def review(body: ArtifactAddress, ctx: Hub) -> dict[str, Any]:
    payload = body.model_dump(exclude={"deviceId"})
    return ctx.devices.link(body.deviceId).call("runtime.tasks.turn_file_changes_review", payload)


@router.post("/revert", summary="Revert a reviewed turn's file changes in the task's directory")
def revert(body: RevertRequest, ctx: Hub) -> dict[str, Any]:
    payload = body.model_dump(exclude={"deviceId"})
    result = ctx.devices.link(body.deviceId).call("runtime.tasks.turn_file_changes_revert", payload)
    ctx.events.publish(
        RUNTIME_CHANGED, {"deviceId": body.deviceId, "localTaskIds": [body.localTaskId]}
    )
    return result
