"""Continuing tasks over HTTP: send, cancel, guidance, compact, goal, models, approvals,
attachments (RW-102..156).

Each route checks that the device is this user's, turns the body into the executor's typed
request with only ``localTaskId`` as the task's identity (RW-127, RW-129, RW-131) and forwards
it to the device (``runtime.tasks.send|cancel|guidance|compact|goal.get|models|activity|
approval.answer``). The reply streams as SSE ``runtime.turn`` events. A send may name uploaded
attachments (``attachmentIds``): the hub checks they are ready and the user's, and hands the
executor their metadata, never a path (RW-153, RW-154, RW-156). The web UI reaches compaction
through this hub too (``POST /api/runtime-work/compact``), unlike the seed's local-only IPC
(RW-145; hangar's web UI has no other way to the executor).
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from fastapi import APIRouter, File, Form, Response, UploadFile
from starlette.concurrency import run_in_threadpool

from hangar.errors import HangarError
from hangar.hub.api.bodies import body_schema, json_body
from hangar.hub.api.runtime_work import FastJSONResponse
from hangar.hub.context import Hub, HubContext
from hangar.hub.executor_link import RpcNotSupported
from hangar.hub.fanout import begin, fan_out
from hangar.hub.store.attachments import MAX_BYTES, AttachmentTooLarge
from hangar.protocol import methods as m
from hangar.protocol import tasks as rpc
from hangar.protocol import turns as t
from hangar.protocol.codec import Wire, to_json
from hangar.protocol.tasks import Id

router = APIRouter(
    prefix="/api/runtime-work", tags=["runtime-work"], default_response_class=FastJSONResponse
)


class DeviceSend(Wire):
    device_id: Id
    local_task_id: Id
    text: t.Text = ""
    model: t.ModelSelection | None = None
    attachment_ids: Annotated[list[Id], msgspec.Meta(max_length=t.MAX_ATTACHMENTS)] = msgspec.field(
        default_factory=list
    )
    client_user_message_id: Id | None = None
    retry_of: Id | None = None
    references: Annotated[list[t.MessageReference], msgspec.Meta(max_length=t.MAX_REFERENCES)] = (
        msgspec.field(default_factory=list)
    )


class DeviceTask(rpc.TaskRef, kw_only=True):
    device_id: Id


class DeviceGuidance(t.GuidanceRequest, kw_only=True):
    device_id: Id


class DeviceApprovalAnswer(t.ApprovalAnswer, kw_only=True):
    device_id: Id


DeviceSendBody = Annotated[DeviceSend, json_body(DeviceSend)]
DeviceTaskBody = Annotated[DeviceTask, json_body(DeviceTask)]
DeviceGuidanceBody = Annotated[DeviceGuidance, json_body(DeviceGuidance)]
DeviceApprovalAnswerBody = Annotated[DeviceApprovalAnswer, json_body(DeviceApprovalAnswer)]


def _call(ctx: HubContext, device_id: str, method: str, request: Any) -> dict[str, Any]:
    result = ctx.devices.link(device_id).call(method, request)
    return {"deviceId": device_id, **to_json(result)}


@router.post("/send", summary="Send a message to a task", openapi_extra=body_schema(DeviceSend))
def send(body: DeviceSendBody, ctx: Hub) -> dict[str, Any]:
    records = ctx.attachments.for_send(ctx.workspace, ctx.workspace.owner_id, body.attachment_ids)
    request = t.SendRequest(
        local_task_id=body.local_task_id,
        text=body.text,
        model=body.model,
        attachments=[
            t.TurnAttachment(
                name=r["name"],
                mime_type=r["mimeType"],
                size=r["size"],
                attachment_id=r["attachmentId"],
                sha256=r["sha256"],
            )
            for r in records
        ],
        client_user_message_id=body.client_user_message_id,
        retry_of=body.retry_of,
        references=body.references,
    )
    return _call(ctx, body.device_id, m.TASKS_SEND.name, request)


_TASK = body_schema(DeviceTask)


@router.post("/cancel", summary="Interrupt the task's running reply", openapi_extra=_TASK)
def cancel(body: DeviceTaskBody, ctx: Hub) -> dict[str, Any]:
    request = rpc.TaskRef(local_task_id=body.local_task_id)
    return _call(ctx, body.device_id, m.TASKS_CANCEL.name, request)


@router.post(
    "/guidance",
    summary="Add guidance to the running reply",
    openapi_extra=body_schema(DeviceGuidance),
)
def guidance(body: DeviceGuidanceBody, ctx: Hub) -> dict[str, Any]:
    request = t.GuidanceRequest(
        local_task_id=body.local_task_id,
        text=body.text,
        client_guidance_id=body.client_guidance_id,
    )
    return _call(ctx, body.device_id, m.TASKS_GUIDANCE.name, request)


@router.post("/compact", summary="Compact the task's context", openapi_extra=_TASK)
def compact(body: DeviceTaskBody, ctx: Hub) -> dict[str, Any]:
    request = rpc.TaskRef(local_task_id=body.local_task_id)
    return _call(ctx, body.device_id, m.TASKS_COMPACT.name, request)


@router.post("/goal", summary="The task's goal, as the agent keeps it", openapi_extra=_TASK)
def goal(body: DeviceTaskBody, ctx: Hub) -> dict[str, Any]:
    request = rpc.TaskRef(local_task_id=body.local_task_id)
    return _call(ctx, body.device_id, m.TASKS_GOAL_GET.name, request)


@router.post("/models", summary="Models the task's agent offers", openapi_extra=_TASK)
def models(body: DeviceTaskBody, ctx: Hub) -> dict[str, Any]:
    request = rpc.TaskRef(local_task_id=body.local_task_id)
    return _call(ctx, body.device_id, m.TASKS_MODELS.name, request)


@router.get("/activity", summary="Running replies and open approval requests")
def activity_route(ctx: Hub, deviceId: str | None = None) -> dict[str, Any]:
    return activity(ctx, deviceId)


def activity(ctx: HubContext, device_id: str | None = None) -> dict[str, Any]:
    """Every online device's live turns and open approvals (also used by the sidebar), asked
    of all devices at once; one that fails or is late contributes nothing (one device asked
    by name answers its error)."""
    turns: list[dict[str, Any]] = []
    approvals: list[dict[str, Any]] = []
    devices = [device_id] if device_id else [i.device_id for i in ctx.device_infos()]
    answers = fan_out(
        devices,
        lambda d: begin(ctx.devices.link(d), m.TASKS_ACTIVITY.name, t.ActivityRequest()),
        ctx.fanout_timeout,
        method=m.TASKS_ACTIVITY.name,
    )
    for device, found in zip(devices, answers, strict=True):
        if isinstance(found, RpcNotSupported):
            continue
        if isinstance(found, HangarError):
            if device_id:
                raise found
            continue
        turns += [{"deviceId": device, **x} for x in to_json(found.turns)]
        approvals += [{"deviceId": device, **x} for x in to_json(found.approvals)]
    return {"turns": turns, "approvals": approvals}


@router.post(
    "/approvals/answer",
    summary="Approve or deny what the agent asked for",
    openapi_extra=body_schema(DeviceApprovalAnswer),
)
def answer(body: DeviceApprovalAnswerBody, ctx: Hub) -> dict[str, Any]:
    request = t.ApprovalAnswer(
        local_task_id=body.local_task_id, approval_id=body.approval_id, decision=body.decision
    )
    return _call(ctx, body.device_id, m.TASKS_APPROVAL_ANSWER.name, request)


@router.post("/attachments", summary="Upload a file for the next message (multipart `file`)")
async def upload(
    ctx: Hub, file: Annotated[UploadFile, File()], name: Annotated[str | None, Form()] = None
) -> dict[str, Any]:
    data = await file.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise AttachmentTooLarge()
    filename = name or file.filename or "attachment"
    return await run_in_threadpool(
        ctx.attachments.save,
        ctx.workspace,
        ctx.workspace.owner_id,
        filename,
        file.content_type or "",
        data,
    )


@router.get(
    "/attachments/{attachment_id}/content",
    summary="An uploaded image, for its preview in the transcript (images only)",
    response_class=Response,
)
def attachment_content(attachment_id: Id, ctx: Hub) -> Response:
    mime, data = ctx.attachments.image(ctx.workspace, ctx.workspace.owner_id, attachment_id)
    return Response(
        data,
        media_type=mime,
        headers={
            "Content-Disposition": "inline",
            "Cache-Control": "private, max-age=3600",
            "X-Content-Type-Options": "nosniff",
        },
    )
