"""The web UI's runtime-work pages and HTML partials (server-rendered, no build step).

``/runtime-tasks?deviceId=…&localTaskId=…`` is the URL of a task (RW-333, RW-334: no paths);
the page renders the sidebar from the runtime-work list and loads the transcript through the
``/ui/transcript`` partial, which pages upward with ``beforeCursor`` and fetches a missing range
with ``beforeIndex``. Everything the user wrote or an agent produced is escaped by Jinja.
"""

from __future__ import annotations

from fastapi import APIRouter, Form, Query
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from hangar.hub.api import runtime_work as runtime_api
from hangar.hub.auth import client_address
from hangar.hub.context import Hub, hub_of
from hangar.hub.pages.devices import router as devices_router
from hangar.hub.pages.discussions import router as discussions_router
from hangar.hub.pages.issues import router as issues_router
from hangar.hub.pages.page import page
from hangar.hub.pages.rendering import render
from hangar.hub.pages.session import (
    check_form_csrf,
    clear_session_cookie,
    require_session,
    safe_next,
    set_session_cookie,
)
from hangar.hub.pages.usage import router as usage_router
from hangar.hub.pages.worktrees import router as worktrees_router
from hangar.transcripts.paging import encode_cursor

router = APIRouter(include_in_schema=False)
router.include_router(issues_router)
router.include_router(discussions_router)
router.include_router(usage_router)
router.include_router(devices_router)
router.include_router(worktrees_router)


@router.get("/")
def home() -> RedirectResponse:
    return RedirectResponse("/runtime-tasks", status_code=303)


@router.get("/favicon.ico")
def favicon() -> RedirectResponse:
    """Browsers ask for ``/favicon.ico`` on pages that name no icon (e.g. ``/docs``)."""
    return RedirectResponse("/static/favicon.svg", status_code=301)


@router.get("/login")
def login_form(next: str | None = None, error: str | None = None) -> HTMLResponse:
    html = render("login.html", next=safe_next(next), error=error)
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


@router.post("/login")
def login(request: Request, token: str = Form(""), next: str = Form("/runtime-tasks")) -> Response:
    auth, client = hub_of(request).auth, client_address(request)
    refusal = auth.throttled(client)
    if refusal is not None:
        html = render(
            "login.html",
            next=safe_next(next),
            error=f"Too many wrong tokens: try again in {refusal.retry_after} s.",
        )
        return HTMLResponse(
            html, status_code=429, headers={"Retry-After": str(refusal.retry_after)}
        )
    if not auth.token_ok(token.strip()):
        auth.throttle.failed(client)
        html = render("login.html", next=safe_next(next), error="That token is not valid.")
        return HTMLResponse(html, status_code=401)
    response = RedirectResponse(safe_next(next), status_code=303)
    set_session_cookie(request, response)
    return response


@router.post("/logout")
def logout(request: Request, csrf_token: str = Form("")) -> Response:
    session_id = require_session(request)
    check_form_csrf(request, session_id, csrf_token)
    hub_of(request).auth.end_session(session_id)
    response = RedirectResponse("/login", status_code=303)
    clear_session_cookie(response)
    return response


@router.get("/runtime-tasks")
def runtime_tasks(
    ctx: Hub,
    request: Request,
    deviceId: str | None = None,
    localTaskId: str | None = None,
) -> HTMLResponse:
    session_id = require_session(request)
    view = runtime_api.runtime_work(ctx)
    return page(
        request,
        session_id,
        "runtime.html",
        view=view,
        device_id=deviceId or "",
        local_task_id=localTaskId or "",
        terminal=ctx.terminal_access,
    )


@router.get("/ui/sidebar")
def sidebar(
    ctx: Hub,
    request: Request,
    deviceId: str | None = None,
    localTaskId: str | None = None,
) -> HTMLResponse:
    require_session(request)
    view = runtime_api.runtime_work(ctx)
    html = render(
        "_sidebar.html", view=view, device_id=deviceId or "", local_task_id=localTaskId or ""
    )
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


@router.get("/ui/transcript")
def transcript_partial(
    ctx: Hub,
    request: Request,
    deviceId: str,
    localTaskId: str,
    limit: int = Query(50, ge=1, le=500),
    beforeCursor: str | None = None,
    beforeIndex: int | None = Query(None, ge=0),
    aroundClientUserMessageId: str | None = Query(None, min_length=1, max_length=200),
    refresh: bool = True,
    glance: bool = False,
) -> HTMLResponse:
    """One page of messages as HTML; ``beforeIndex`` asks for the page ending before it,
    ``aroundClientUserMessageId`` for the page around that user message. ``glance`` (the
    latest page only) may answer with the file's last turns before the device has read it
    (``data-settled="false"``): the UI shows them until the exact page replaces them."""
    require_session(request)
    cursor = encode_cursor(beforeIndex) if beforeIndex is not None else beforeCursor
    body = runtime_api.DeviceTranscriptRequest(
        device_id=deviceId,
        local_task_id=localTaskId,
        limit=limit,
        before_cursor=cursor,
        refresh=refresh,
        around_client_user_message_id=aroundClientUserMessageId,
    )
    latest = cursor is None and aroundClientUserMessageId is None
    if glance and latest:
        result = runtime_api.first_look(body, ctx)
    else:
        result = runtime_api.transcript(body, ctx)
    messages = result.get("messages", [])
    indexes = [m.get("index", 0) for m in messages]
    html = render(
        "_transcript_page.html",
        result=result,
        messages=messages,
        first=min(indexes) if indexes else (beforeIndex or 0),
        last=max(indexes) if indexes else -1,
        task=result.get("task") or {},
    )
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


@router.get("/archived")
def archived_page(request: Request, ctx: Hub) -> HTMLResponse:
    session_id = require_session(request)
    view = runtime_api.archived_view_of(ctx, None)
    return page(request, session_id, "archived.html", view=view)
