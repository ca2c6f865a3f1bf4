"""Browser sessions for the web UI: log in with the token, cookie, CSRF on every form.

Pages call :func:`require_session`; without a valid cookie it raises :class:`LoginRequired`,
which the app turns into a redirect to ``/login?next=…``. Forms carry ``csrf_token``;
:func:`check_form_csrf` rejects a POST without this session's token (403).
"""

from __future__ import annotations

from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from hangar.hub.auth import SESSION_COOKIE, CsrfError
from hangar.hub.context import hub_of

SESSION_MAX_AGE = 30 * 24 * 3600


class LoginRequired(Exception):
    """The page needs a logged-in browser session."""

    def __init__(self, next_url: str) -> None:
        super().__init__(next_url)
        self.next_url = next_url


def require_session(request: Request) -> str:
    """The session id of this browser, or :class:`LoginRequired`."""
    session_id = hub_of(request).auth.request_session(request)
    if session_id is None:
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        raise LoginRequired(target)
    return session_id


def check_form_csrf(request: Request, session_id: str, submitted: str | None) -> None:
    if not hub_of(request).auth.csrf_ok(session_id, submitted):
        raise CsrfError("the form is stale or forged: reload the page and try again")


def login_redirect(exc: LoginRequired) -> Response:
    return RedirectResponse(f"/login?next={quote(exc.next_url, safe='')}", status_code=303)


def safe_next(next_url: str | None) -> str:
    """Only same-site paths are valid redirect targets after login."""
    if not next_url or not next_url.startswith("/") or next_url.startswith("//"):
        return "/runtime-tasks"
    if "\\" in next_url:
        return "/runtime-tasks"
    return next_url


def set_session_cookie(request: Request, response: Response) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        hub_of(request).auth.new_session_cookie(),
        max_age=SESSION_MAX_AGE,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
    )


def clear_session_cookie(response: Response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
