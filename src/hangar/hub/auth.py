"""The hub's credentials: the bearer token, browser sessions and CSRF tokens.

- The token is ``HANGAR_TOKEN`` when set, else ``$HANGAR_HOME/token`` (0600), created once,
  atomically, on first start. Comparisons are constant-time.
- A browser logs in with the token and gets a session cookie (HttpOnly, SameSite=Strict). The
  cookie is ``<session id>.<HMAC(token, session id)>``: it survives a hub restart and dies when the
  token changes. The CSRF token of a session is ``HMAC(token, "csrf:" + session id)``; every
  state-changing request that authenticates with the cookie must carry it (form field
  ``csrf_token`` or header ``X-CSRF-Token``).
- ``/api`` accepts ``Authorization: Bearer <token>``, or the session cookie (the web UI's own
  calls) under the CSRF rule above.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import ClassVar

from starlette.requests import Request

from hangar.errors import HangarError

SESSION_COOKIE = "hangar_session"
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf_token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(eq=False)
class AuthError(HangarError):
    """No valid credentials (HTTP 401)."""

    code: ClassVar[str] = "unauthorized"
    http_status: ClassVar[int] = 401


@dataclass(eq=False)
class CsrfError(HangarError):
    """A state-changing browser request without this session's CSRF token (HTTP 403)."""

    code: ClassVar[str] = "csrf_failed"
    http_status: ClassVar[int] = 403


def _mac(token: str, message: str) -> str:
    return hmac.new(token.encode(), message.encode(), hashlib.sha256).hexdigest()


class Authenticator:
    """Checks bearer tokens, session cookies and CSRF tokens against one hub token."""

    def __init__(self, token: str) -> None:
        self._token = token

    def token_ok(self, candidate: str) -> bool:
        return hmac.compare_digest(candidate.encode(), self._token.encode())

    def new_session_cookie(self) -> str:
        session_id = secrets.token_urlsafe(18)
        return f"{session_id}.{_mac(self._token, 'session:' + session_id)}"

    def session_id(self, cookie: str | None) -> str | None:
        """The session id of a valid cookie value, else ``None``."""
        if not cookie or "." not in cookie:
            return None
        session_id, mac = cookie.rsplit(".", 1)
        expected = _mac(self._token, "session:" + session_id)
        return session_id if hmac.compare_digest(mac.encode(), expected.encode()) else None

    def csrf_token(self, session_id: str) -> str:
        return _mac(self._token, "csrf:" + session_id)

    def csrf_ok(self, session_id: str, candidate: str | None) -> bool:
        return bool(candidate) and hmac.compare_digest(
            str(candidate).encode(), self.csrf_token(session_id).encode()
        )

    def bearer_ok(self, request: Request) -> bool:
        header = request.headers.get("authorization", "")
        scheme, _, value = header.partition(" ")
        return scheme.lower() == "bearer" and self.token_ok(value.strip())

    def request_session(self, request: Request) -> str | None:
        return self.session_id(request.cookies.get(SESSION_COOKIE))

    def check_api(self, request: Request) -> None:
        """Raise unless ``request`` carries the bearer token or a session (plus CSRF if unsafe)."""
        if self.bearer_ok(request):
            return
        session_id = self.request_session(request)
        if session_id is None:
            raise AuthError("missing or invalid token: send 'Authorization: Bearer <token>'")
        if request.method not in SAFE_METHODS and not self.csrf_ok(
            session_id, request.headers.get(CSRF_HEADER)
        ):
            raise CsrfError("missing or invalid X-CSRF-Token header")
