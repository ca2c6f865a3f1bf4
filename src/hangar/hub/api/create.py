"""Creating tasks over HTTP (RW-272..296): ``POST /api/runtime-work/create`` and what the
"New task" form needs — the projects and agents of every online device, and an agent's models.

The target device and directory come from what that device reports (``runtime.projects.list``),
never from a central project id: the hub forwards the request to the named device, which
refuses a directory it does not report. The client generates ``localTaskId`` and opens
``/runtime-tasks?deviceId=…&localTaskId=…`` at once; the reply streams as SSE ``runtime.turn``
events of that task.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter

from hangar.hub.api.bodies import body_schema, json_body
from hangar.hub.api.runtime_work import FastJSONResponse
from hangar.hub.context import Hub
from hangar.hub.executor_link import RpcNotSupported
from hangar.protocol import create as cr
from hangar.protocol import methods as m
from hangar.protocol.codec import to_json
from hangar.protocol.tasks import Id

router = APIRouter(
    prefix="/api/runtime-work", tags=["runtime-work"], default_response_class=FastJSONResponse
)


class DeviceCreate(cr.CreateTask, kw_only=True):
    device_id: Id


class DeviceAgent(cr.AgentModelsRequest, kw_only=True):
    device_id: Id


class DeviceProject(cr.CreateProject, kw_only=True):
    device_id: Id


DeviceProjectBody = Annotated[DeviceProject, json_body(DeviceProject)]
DeviceCreateBody = Annotated[DeviceCreate, json_body(DeviceCreate)]
DeviceAgentBody = Annotated[DeviceAgent, json_body(DeviceAgent)]


@router.post("/create", summary="Create a task", openapi_extra=body_schema(DeviceCreate))
def create(body: DeviceCreateBody, ctx: Hub) -> dict[str, Any]:
    request = cr.CreateTask(
        local_task_id=body.local_task_id,
        runtime=body.runtime,
        text=body.text,
        model=body.model,
        mode=body.mode,
        workspace_path=body.workspace_path,
        branch=body.branch,
        client_user_message_id=body.client_user_message_id,
    )
    result = ctx.devices.link(body.device_id).call(m.TASKS_CREATE.name, request)
    return {"deviceId": body.device_id, **to_json(result)}


@router.get("/projects", summary="Projects and agents of every online device, for a new task")
def projects(ctx: Hub) -> dict[str, Any]:
    devices = []
    for info in ctx.device_infos():
        try:
            found = ctx.devices.link(info.device_id).call(
                m.PROJECTS_LIST.name, cr.ProjectsRequest()
            )
        except RpcNotSupported:
            continue
        devices.append({"deviceId": info.device_id, "name": info.name, **to_json(found)})
    return {"devices": devices}


@router.post(
    "/agent-models",
    summary="Models an agent offers for a new task",
    openapi_extra=body_schema(DeviceAgent),
)
def agent_models(body: DeviceAgentBody, ctx: Hub) -> dict[str, Any]:
    request = cr.AgentModelsRequest(runtime=body.runtime)
    result = ctx.devices.link(body.device_id).call(m.AGENTS_MODELS.name, request)
    return {"deviceId": body.device_id, **to_json(result)}


@router.post(
    "/projects/create",
    summary="A new blank project directory on a device",
    openapi_extra=body_schema(DeviceProject),
)
def create_project(body: DeviceProjectBody, ctx: Hub) -> dict[str, Any]:
    request = cr.CreateProject(name=body.name)
    result = ctx.devices.link(body.device_id).call(m.PROJECTS_CREATE.name, request)
    return {"deviceId": body.device_id, **to_json(result)}
