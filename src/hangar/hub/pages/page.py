"""A full page of the web UI for a signed-in session."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse

from hangar.hub.context import hub_of
from hangar.hub.pages.rendering import render


def page(request: Request, session_id: str, name: str, **context: Any) -> HTMLResponse:
    """Template ``name`` with the session's CSRF token, the workspace and the request path,
    never cached. A ``status_code`` in ``context`` (a form shown again with its error) is
    the response's status as well; 200 without one."""
    ctx = hub_of(request)
    html = render(
        name,
        csrf_token=ctx.auth.csrf_token(session_id),
        workspace=ctx.workspace,
        path=request.url.path,
        **context,
    )
    status = int(context.get("status_code", 200))
    return HTMLResponse(html, status_code=status, headers={"Cache-Control": "no-store"})
