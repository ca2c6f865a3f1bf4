"""``/api/devices``: the devices of a team hub (registrations, tokens, live state).

``POST /api/devices {name}`` creates a registration and answers its device token once (only
its hash is kept) with the command to run on the device; ``POST /api/devices/{id}/revoke``
refuses the token from then on and closes the device's connection on whichever replica holds
it. ``GET /api/devices`` lists them with their state (online, busy, offline, revoked) and the
address the hub shows for each (RW-046, RW-047).

The executor's WebSocket itself is ``/executor/connect`` (:func:`executor_socket`); it is
outside ``/api`` because it authenticates with a device token, never the hub token. So does
``GET /executor/attachments/{id}``: the bytes of an upload a send to that device names, which
its executor fetches (and checks against the size and SHA-256 the send carried).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request, WebSocket
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from hangar.hub.api.bodies import body_schema, json_body
from hangar.hub.auth import AuthError
from hangar.hub.context import Hub, HubContext, hub_of
from hangar.hub.devices import registry
from hangar.hub.devices.connection import serve_connection
from hangar.hub.devices.service import DEVICE_REVOKED
from hangar.hub.runtime_work import display_address
from hangar.protocol import frames as f
from hangar.protocol.codec import Wire
from hangar.protocol.tasks import Title

router = APIRouter(prefix="/api/devices", tags=["devices"])
socket_router = APIRouter(include_in_schema=False)

DEVICES_CHANGED = "devices.changed"


class DeviceAdd(Wire):
    name: Title


DeviceAddBody = Annotated[DeviceAdd, json_body(DeviceAdd)]


def device_list(ctx: HubContext) -> list[dict[str, Any]]:
    """Every registration with its live state (also rendered by the Devices page)."""
    live = {s.device_id: s for s in ctx.devices.states()}
    out = []
    for item in registry.list_devices(ctx.engine, ctx.workspace):
        state = live.get(item["deviceId"] or "")
        if item["revokedAt"] is None:
            item["state"] = state.state if state is not None else "offline"
        item["address"] = (
            display_address(item["transferHost"], item["clientIp"]) if state is not None else None
        )
        out.append(item)
    return out


@router.get("", summary="Registered devices and their state")
def list_route(ctx: Hub) -> dict[str, Any]:
    return {"devices": device_list(ctx), "local": ctx.devices.local_device_id or None}


def add_device(ctx: HubContext, name: str, base_url: str) -> dict[str, Any]:
    device, token = registry.add_device(ctx.engine, ctx.workspace, name)
    ctx.events.publish(DEVICES_CHANGED, {"reason": "added"})
    command = f"hangar executor --hub {base_url.rstrip('/')} --token {token}"
    return {"device": device, "token": token, "command": command}


@router.post(
    "", summary="Register a device (answers its token once)", openapi_extra=body_schema(DeviceAdd)
)
def add_route(body: DeviceAddBody, ctx: Hub) -> dict[str, Any]:
    return add_device(ctx, body.name, ctx.public_url)


def revoke_device(ctx: HubContext, key: str) -> dict[str, Any]:
    device = registry.revoke(ctx.engine, ctx.workspace, key)
    if device["deviceId"]:
        ctx.events.publish(DEVICE_REVOKED, {"deviceId": device["deviceId"]})
    ctx.events.publish(DEVICES_CHANGED, {"reason": "revoked"})
    return {"device": device}


@router.post("/{key}/revoke", summary="Revoke a device's token (by id, device id or name)")
def revoke_route(key: str, ctx: Hub) -> dict[str, Any]:
    return revoke_device(ctx, key)


@socket_router.websocket("/executor/connect")
async def executor_socket(websocket: WebSocket) -> None:
    """A remote executor's connection (see :mod:`hangar.hub.devices.connection`)."""
    ctx = websocket.app.state.hub
    assert isinstance(ctx, HubContext)
    if ctx.directory is None:
        await websocket.accept()
        await websocket.close(f.CLOSE_REFUSED, "this hub does not accept remote executors")
        return
    await serve_connection(websocket, ctx.directory, ctx.device_event)


@socket_router.get("/executor/attachments/{attachment_id}")
async def device_attachment(attachment_id: str, request: Request) -> Response:
    """An upload's bytes for a registered, unrevoked device's executor (its device token)."""
    ctx = hub_of(request)
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthError("a device token is required (Authorization: Bearer …)")
    found = await run_in_threadpool(registry.authenticate, ctx.engine, token.strip())
    if found is None or found.revoked or not found.device_id:
        raise AuthError("unknown or revoked device token")
    data = await run_in_threadpool(ctx.attachments.read, attachment_id)
    return Response(data, media_type="application/octet-stream")
