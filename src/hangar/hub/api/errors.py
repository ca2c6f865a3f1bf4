"""One JSON error shape for every 4xx and 5xx: ``{"error": {"code", "message", "details?"}}``.

:class:`~hangar.errors.HangarError` maps through its ``code``/``http_status``/``details()``;
request validation errors become 422 ``invalid_request`` with the offending fields; Starlette's
own HTTP errors (404 for an unknown route, 405…) keep their status; anything else is logged
with its traceback and answered 500 ``internal_error`` without leaking the traceback.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from hangar.errors import HangarError, shown

log = logging.getLogger("hangar.hub")
MAX_PROBLEMS = 20
"""Validation problems listed in one answer (the rest are counted)."""


_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    422: "invalid_request",
    429: "too_many_requests",
    501: "not_supported",
    503: "unavailable",
}


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if details:
        error["details"] = details
    return {"error": error}


def error_response(
    status: int, code: str, message: str, details: dict[str, Any] | None = None
) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(error_body(code, message, details), status_code=status, headers=headers)


def wants_html(request: Request) -> bool:
    """A browser page (not ``/api``, not a script's fetch of a partial) asked for HTML."""
    path = request.url.path
    if path.startswith(("/api", "/ui/")):
        return False
    return "text/html" in request.headers.get("accept", "")


def html_error(status: int, message: str) -> Response:
    from hangar.hub.pages.rendering import render  # the API error path never needs Jinja

    return HTMLResponse(render("error.html", status=status, message=message), status_code=status)


def _hangar_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HangarError)
    if exc.http_status >= 500:
        log.error("%s: %s", exc.code, exc)
    if wants_html(request):
        return html_error(exc.http_status, str(exc))
    return error_response(exc.http_status, exc.code, str(exc), exc.details() or None)


def _validation_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    problems = [
        {
            "field": shown(".".join(str(part) for part in err.get("loc", ()) if part != "body")),
            "problem": shown(str(err.get("msg", "invalid")), 200),
        }
        for err in errors[:MAX_PROBLEMS]
    ]
    first = problems[0] if problems else {"field": "", "problem": "invalid request"}
    message = f"{first['field'] or 'request'}: {first['problem']}"
    details: dict[str, Any] = {"problems": problems}
    if len(errors) > MAX_PROBLEMS:
        details["more"] = len(errors) - MAX_PROBLEMS
    return error_response(422, "invalid_request", message, details)


def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    code = _HTTP_CODES.get(exc.status_code, "error" if exc.status_code < 500 else "server_error")
    message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
    if wants_html(request):
        return html_error(exc.status_code, message)
    response = error_response(exc.status_code, code, message)
    if exc.headers:
        response.headers.update(exc.headers)
    return response


def _unhandled(request: Request, exc: Exception) -> Response:
    log.exception("unhandled error in %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, "internal_error", "internal server error (see the hub's log)")


def _login_required(_request: Request, exc: Exception) -> Response:
    from hangar.hub.pages.session import LoginRequired, login_redirect

    assert isinstance(exc, LoginRequired)
    return login_redirect(exc)


def install_error_handlers(app: FastAPI) -> None:
    from hangar.hub.pages.session import LoginRequired

    app.add_exception_handler(LoginRequired, _login_required)
    app.add_exception_handler(HangarError, _hangar_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unhandled)
