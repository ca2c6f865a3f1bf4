"""The Devices and Notifications pages (server-rendered forms over the same library calls as
``/api/devices`` and ``/api/notifications``)."""

from __future__ import annotations

from fastapi import APIRouter, Form
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from hangar.errors import HangarError
from hangar.hub.api import devices as devices_api
from hangar.hub.api.notifications import service
from hangar.hub.context import Hub
from hangar.hub.notify import store
from hangar.hub.pages.page import page
from hangar.hub.pages.session import check_form_csrf, require_session

router = APIRouter(include_in_schema=False)


@router.get("/devices")
def devices_page(request: Request, ctx: Hub) -> HTMLResponse:
    session_id = require_session(request)
    return page(request, session_id, "devices.html", devices=devices_api.device_list(ctx))


@router.post("/devices")
def add_device(
    request: Request, ctx: Hub, name: str = Form(""), csrf_token: str = Form("")
) -> Response:
    session_id = require_session(request)
    check_form_csrf(request, session_id, csrf_token)
    try:
        added = devices_api.add_device(ctx, name, ctx.public_url)
    except HangarError as exc:
        return page(
            request,
            session_id,
            "devices.html",
            devices=devices_api.device_list(ctx),
            error=str(exc),
            status_code=exc.http_status,
        )
    # The token is shown on this one answer only (it is not stored in clear anywhere).
    return page(
        request, session_id, "devices.html", devices=devices_api.device_list(ctx), added=added
    )


@router.post("/devices/{key}/revoke")
def revoke_device(request: Request, key: str, ctx: Hub, csrf_token: str = Form("")) -> Response:
    session_id = require_session(request)
    check_form_csrf(request, session_id, csrf_token)
    devices_api.revoke_device(ctx, key)
    return RedirectResponse("/devices", status_code=303)


@router.get("/notifications")
def notifications_page(request: Request, ctx: Hub) -> HTMLResponse:
    session_id = require_session(request)
    return page(request, session_id, "notifications.html", state=service(ctx).status())


@router.post("/notifications")
def notifications_form(
    request: Request,
    ctx: Hub,
    action: str = Form(""),
    name: str = Form(""),
    url: str = Form(""),
    scope: str = Form("global"),
    target: str = Form(""),
    csrf_token: str = Form(""),
) -> Response:
    session_id = require_session(request)
    check_form_csrf(request, session_id, csrf_token)
    notifications = service(ctx)
    try:
        if action in ("on", "off"):
            notifications.set_enabled(action == "on")
        elif action == "add":
            store.add_target(
                notifications.engine,
                notifications.member_id,
                name.strip(),
                url.strip(),
                "task" if scope == "task" else "global",
            )
        elif action == "delete":
            store.delete_target(notifications.engine, notifications.member_id, target)
    except HangarError as exc:
        state = notifications.status()
        return page(
            request,
            session_id,
            "notifications.html",
            state=state,
            error=str(exc),
            status_code=exc.http_status,
        )
    ctx.events.publish("notifications.changed", {})
    return RedirectResponse("/notifications", status_code=303)
