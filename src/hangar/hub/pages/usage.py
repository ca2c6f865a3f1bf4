"""The Usage page: tokens and cost by task, project, day or model, from every online device."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import HTMLResponse

from hangar.hub.api.usage import usage_view
from hangar.hub.context import Hub
from hangar.hub.pages.page import page
from hangar.hub.pages.session import require_session
from hangar.protocol.usage import GroupBy, UsageRequest

router = APIRouter(include_in_schema=False)


@router.get("/usage")
def usage_page(request: Request, ctx: Hub, by: GroupBy = "task") -> HTMLResponse:
    session_id = require_session(request)
    view = usage_view(ctx, UsageRequest(by=by))
    return page(request, session_id, "usage.html", view=view, by=by)
