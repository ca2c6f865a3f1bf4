"""The hub's credentials: the bearer token, browser sessions and CSRF tokens.

- The token is ``HANGAR_TOKEN`` when set, else ``$HANGAR_HOME/token`` (0600), created once,
  atomically, on first start (:mod:`hangar.token_file`). Comparisons are constant-time.
- A browser logs in with the token and gets a session cookie (HttpOnly, SameSite=Strict) holding
  a random session id. The hub keeps the session server-side
  (:class:`~hangar.hub.store.browser_sessions.BrowserSessions`, by ``HMAC(token, session id)``):
  it survives a hub restart, ends on logout or after 30 days, and dies when the token changes.
  The CSRF token of a session is ``HMAC(token, "csrf:" + session id)``; every state-changing
  request that authenticates with the cookie must carry it (form field ``csrf_token`` or header
  ``X-CSRF-Token``).
- ``/api`` accepts ``Authorization: Bearer <token>``, or the session cookie (the web UI's own
  calls) under the CSRF rule above.
- A hub token has at least 32 characters (:func:`hangar.token_file.check_token_strength`).
  Failed tokens are slowed down per client address (:mod:`hangar.hub.auth_throttle`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import ClassVar

from starlette.requests import Request

from hangar.errors import HangarError
from hangar.hub.auth_throttle import FailureThrottle
from hangar.hub.store.browser_sessions import BrowserSessions
from hangar.token_file import check_token_strength

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


@dataclass(eq=False)
class TooManyFailures(HangarError):
    """This client address spent its budget of failed tokens (HTTP 429, ``Retry-After``)."""

    retry_after: int = 1
    code: ClassVar[str] = "too_many_failures"
    http_status: ClassVar[int] = 429


def client_address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


def _mac(token: str, message: str) -> str:
    return hmac.new(token.encode(), message.encode(), hashlib.sha256).hexdigest()


class Authenticator:
    """Checks bearer tokens, session cookies and CSRF tokens against one hub token."""

    def __init__(
        self, token: str, sessions: BrowserSessions, throttle: FailureThrottle | None = None
    ) -> None:
        self._token = check_token_strength(token, "the hub token", "use a longer one")
        self.sessions = sessions
        self.throttle = throttle or FailureThrottle()

    def token_ok(self, candidate: str) -> bool:
        return hmac.compare_digest(candidate.encode(), self._token.encode())

    def _session_digest(self, session_id: str) -> str:
        return _mac(self._token, "session:" + session_id)

    def new_session_cookie(self) -> str:
        """Start a session; the cookie value is its id."""
        session_id = secrets.token_urlsafe(32)
        self.sessions.create(self._session_digest(session_id))
        return session_id

    def session_id(self, cookie: str | None) -> str | None:
        """The session id of a cookie naming a live session, else ``None``."""
        if not cookie or len(cookie) > 100:
            return None
        return cookie if self.sessions.is_valid(self._session_digest(cookie)) else None

    def keyed_digest(self, message: str) -> str:
        """HMAC-SHA256 of ``message`` keyed with the hub token (hex): secrets derived from the
        token, e.g. run-scoped tokens, that need not be stored and change with the token."""
        return _mac(self._token, message)

    def end_session(self, session_id: str) -> None:
        """Log out: the session's cookie no longer works anywhere."""
        self.sessions.revoke(self._session_digest(session_id))

    def csrf_token(self, session_id: str) -> str:
        return _mac(self._token, "csrf:" + session_id)

    def csrf_ok(self, session_id: str, candidate: str | None) -> bool:
        return bool(candidate) and hmac.compare_digest(
            str(candidate).encode(), self.csrf_token(session_id).encode()
        )

    def throttled(self, client: str) -> TooManyFailures | None:
        """The error to answer ``client`` with while its failure budget is spent, else None."""
        wait = self.throttle.retry_after(client)
        if not wait:
            return None
        return TooManyFailures(
            f"too many failed tokens from this address; try again in {wait} s", retry_after=wait
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
