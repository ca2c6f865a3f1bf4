"""The Worktrees page: every online device's managed worktrees by repository, with their
tasks; delete (snapshot first), restore, prune and the device's settings (``worktrees.js``)."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import HTMLResponse

from hangar.hub.api.worktrees import ListWorktrees, list_worktrees
from hangar.hub.context import Hub
from hangar.hub.pages.page import page
from hangar.hub.pages.session import require_session

router = APIRouter(include_in_schema=False)


@router.get("/worktrees")
def worktrees_page(request: Request, ctx: Hub) -> HTMLResponse:
    session_id = require_session(request)
    view = list_worktrees(ListWorktrees(), ctx)
    return page(request, session_id, "worktrees.html", view=view)
