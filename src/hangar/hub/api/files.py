"""``/api/runtime-work/files/{list,read,status}``: a read-only view of a task's directory.

The hub forwards the task's ``deviceId`` + ``workspacePath`` (RW-248, RW-253: never another
device or a project default) to ``runtime.files.*`` on that device, which resolves the
directory from its own index and refuses any path that would leave it
(``docs/api.md``). Nothing is written.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter

from hangar.hub.api.bodies import body_schema, json_body
from hangar.hub.api.runtime_work import FastJSONResponse
from hangar.hub.context import Hub
from hangar.protocol import files as fl
from hangar.protocol import methods as m
from hangar.protocol.codec import to_json
from hangar.protocol.tasks import Id

router = APIRouter(
    prefix="/api/runtime-work/files",
    tags=["runtime-work"],
    default_response_class=FastJSONResponse,
)


class DeviceFilesRequest(fl.FilesRequest, kw_only=True):
    device_id: Id


class DeviceWorkspaceRef(fl.WorkspaceRef, kw_only=True):
    device_id: Id


FilesBody = Annotated[DeviceFilesRequest, json_body(DeviceFilesRequest)]
WorkspaceBody = Annotated[DeviceWorkspaceRef, json_body(DeviceWorkspaceRef)]


def _files_request(body: DeviceFilesRequest) -> fl.FilesRequest:
    return fl.FilesRequest(
        workspace_path=body.workspace_path, local_task_id=body.local_task_id, path=body.path
    )


@router.post(
    "/list",
    summary="One directory of a task's workspace (no symlink followed)",
    openapi_extra=body_schema(DeviceFilesRequest),
)
def list_directory(body: FilesBody, ctx: Hub) -> Any:
    link = ctx.devices.link(body.device_id)
    return to_json(link.call(m.FILES_LIST.name, _files_request(body)))


@router.post(
    "/read",
    summary="A file of a task's workspace, read-only and size-limited",
    openapi_extra=body_schema(DeviceFilesRequest),
)
def read_file(body: FilesBody, ctx: Hub) -> Any:
    link = ctx.devices.link(body.device_id)
    return to_json(link.call(m.FILES_READ.name, _files_request(body)))


@router.post(
    "/status",
    summary="git status of a task's workspace, run in the task's own directory",
    openapi_extra=body_schema(DeviceWorkspaceRef),
)
def git_status(body: WorkspaceBody, ctx: Hub) -> dict[str, Any]:
    request = fl.WorkspaceRef(workspace_path=body.workspace_path, local_task_id=body.local_task_id)
    result: dict[str, Any] = to_json(ctx.devices.link(body.device_id).call(
        m.FILES_STATUS.name, request
    ))  # fmt: skip
    return result
