"""``POST /api/runtime-work/adopt``: adopt a device's task into an issue as a local run.

Body ``{deviceId, localTaskId, issueKey?}`` (``issueKey`` absent: a new issue is made of the
session's first request) → ``201`` for a new adoption, ``200`` when the task was adopted into
that issue before: ``{run, issueKey, created, issueCreated, imported}``, ``imported`` being
how many execution-log messages this call stored (nothing twice). ``409 conflict`` when the
task is adopted into another issue, ``404`` for an unknown issue, task or device. See
:mod:`hangar.hub.adoption`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from hangar.hub import adoption
from hangar.hub.api.bodies import body_schema, json_body
from hangar.hub.context import Hub
from hangar.protocol import tasks as rpc
from hangar.protocol.tasks import Id

router = APIRouter(prefix="/api/runtime-work", tags=["runtime-work"])


class AdoptRequest(rpc.TaskRef, kw_only=True):
    device_id: Id
    issue_key: Id | None = None
    """The issue to adopt into; absent: a new issue made of the session's first request."""


AdoptBody = Annotated[AdoptRequest, json_body(AdoptRequest)]


@router.post(
    "/adopt",
    status_code=201,
    summary="Adopt a task into an issue (its execution log imported, later turns followed)",
    openapi_extra=body_schema(AdoptRequest),
)
def adopt(body: AdoptBody, ctx: Hub) -> JSONResponse:
    done = adoption.adopt(ctx, body.device_id, body.local_task_id, body.issue_key)
    return JSONResponse(
        {
            "run": done.run,
            "issueKey": done.issue_key,
            "created": done.created,
            "issueCreated": done.issue_created,
            "imported": done.imported,
        },
        status_code=201 if done.created else 200,
    )
