"""The hub's input limits (documented in docs/api.md) and the request-body guard.

- :data:`MAX_BODY_BYTES`: a request body may hold at most this many bytes. A larger
  ``Content-Length`` is answered 413 before anything is read; a body without one (chunked) is
  counted while it is read and refused with 413 as soon as it passes the limit, so the hub
  never holds more than the limit (plus one chunk) of a request in memory.
- :data:`MAX_ID_CHARS`: ids and keys in paths and bodies (``deviceId``, ``localTaskId``, run
  ids, issue keys, cursors); :data:`MAX_PROJECT_ID_CHARS` for a ``projectId``.
- :data:`MAX_COUNT`: integers the hub stores (token counts, ``activeMs``, ``since``);
  :data:`MIN_EXIT_CODE` … :data:`MAX_EXIT_CODE` for exit codes.
- Run messages: see :mod:`hangar.model.run_messages` (field sizes, ``input`` depth).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import HTTPException, Path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hangar.hub.api.errors import error_response
from hangar.model.run_messages import MAX_COUNT
from hangar.protocol.codec import MAX_ID_CHARS

MAX_BODY_BYTES = 4 * 1024 * 1024
MAX_PROJECT_ID_CHARS = 8192
"""A Project id holds its folder path, so it may be long (still bounded)."""
MIN_EXIT_CODE = -(2**31)
MAX_EXIT_CODE = 2**31 - 1

__all__ = ["MAX_BODY_BYTES", "MAX_COUNT", "MAX_ID_CHARS", "BodyLimitMiddleware", "PathId"]

PathId = Annotated[str, Path(min_length=1, max_length=MAX_ID_CHARS)]
"""A path parameter holding an id or key (422 when longer than :data:`MAX_ID_CHARS`)."""


def _too_large(limit: int) -> str:
    return f"request body larger than {limit} bytes"


class BodyLimitMiddleware:
    """Refuses request bodies over ``limit`` bytes with 413 (see the module docstring)."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared > self.limit or declared < 0:
                    status, problem = (
                        (413, _too_large(self.limit)) if declared > 0 else (400, "bad length")
                    )
                    code = "too_large" if status == 413 else "bad_request"
                    await error_response(status, code, problem)(scope, receive, send)
                    return
        seen = 0

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    # Raised inside the app, which answers it in the one error shape.
                    raise HTTPException(status_code=413, detail=_too_large(self.limit))
            return message

        await self.app(scope, counting_receive, send)
