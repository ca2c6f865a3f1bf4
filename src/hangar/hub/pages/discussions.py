"""The web UI's discussion pages: the list and one discussion's saved questions, answers and
plans (LR-117). Nothing else is stored for a discussion, so nothing else can be shown: no
reasoning, no tool calls, no status events."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import HTMLResponse

from hangar.hub.context import Hub
from hangar.hub.pages.page import page
from hangar.hub.pages.session import require_session
from hangar.hub.store import discussions as repo

router = APIRouter(include_in_schema=False)


@router.get("/discussions")
def discussions_page(request: Request, ctx: Hub) -> HTMLResponse:
    session_id = require_session(request)
    status = request.query_params.get("status") or None
    if status not in (None, *repo.STATUSES):
        status = None
    found = repo.list_discussions(ctx.engine, ctx.workspace, status=status)
    return page(request, session_id, "discussions_list.html", discussions=found, status=status)


@router.get("/discussions/{discussion_id}")
def discussion_page(discussion_id: str, request: Request, ctx: Hub) -> HTMLResponse:
    session_id = require_session(request)
    discussion = repo.get_discussion(ctx.engine, ctx.workspace, discussion_id)
    return page(request, session_id, "discussion_detail.html", discussion=discussion)
