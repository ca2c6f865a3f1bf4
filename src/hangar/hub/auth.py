"""The hub's credentials: the bearer token, browser sessions and CSRF tokens.

- The token is ``HANGAR_TOKEN`` when set, else ``$HANGAR_HOME/token`` (0600), created once,
  atomically, on first start. Comparisons are constant-time.
- A browser logs in with the token and gets a session cookie (HttpOnly, SameSite=Strict) holding
  a random session id. The hub keeps the session server-side
  (:class:`~hangar.hub.store.browser_sessions.BrowserSessions`, by ``HMAC(token, session id)``):
  it survives a hub restart, ends on logout or after 30 days, and dies when the token changes.
  The CSRF token of a session is ``HMAC(token, "csrf:" + session id)``; every state-changing
  request that authenticates with the cookie must carry it (form field ``csrf_token`` or header
  ``X-CSRF-Token``).
- ``/api`` accepts ``Authorization: Bearer <token>``, or the session cookie (the web UI's own
  calls) under the CSRF rule above.
- A hub token has at least :data:`MIN_TOKEN_LENGTH` characters; a shorter ``HANGAR_TOKEN`` or
  token file stops the hub with a message saying how to fix it. Failed tokens are slowed down
  per client address (:mod:`hangar.hub.auth_throttle`).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from starlette.requests import Request

from hangar.atomicfile import create_exclusive
from hangar.errors import CorruptFileError, HangarError
from hangar.hub.auth_throttle import FailureThrottle
from hangar.hub.store.browser_sessions import BrowserSessions

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


MIN_TOKEN_LENGTH = 32
NEW_TOKEN_HINT = "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"


@dataclass(eq=False)
class WeakTokenError(HangarError):
    """A hub token shorter than :data:`MIN_TOKEN_LENGTH` characters."""

    source: str = ""
    length: int = 0
    hint: str = ""
    code: ClassVar[str] = "weak_token"

    def render(self) -> str:
        return (
            f"{self.source}: the token has {self.length} characters; a hub token needs at least "
            f"{MIN_TOKEN_LENGTH}: {self.hint}"
        )


def check_token_strength(token: str, source: str, hint: str) -> str:
    """``token`` if it is long enough, else :class:`WeakTokenError` naming ``source``."""
    if len(token) < MIN_TOKEN_LENGTH:
        raise WeakTokenError(source=source, length=len(token), hint=hint)
    return token


@dataclass(eq=False)
class TooManyFailures(HangarError):
    """This client address spent its budget of failed tokens (HTTP 429, ``Retry-After``)."""

    retry_after: int = 1
    code: ClassVar[str] = "too_many_failures"
    http_status: ClassVar[int] = 429


def client_address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


@dataclass(frozen=True)
class TokenSource:
    token: str
    origin: str
    """``HANGAR_TOKEN`` or the token file's path: what startup tells the user."""


def load_or_create_token(path: Path, environ: dict[str, str] | None = None) -> TokenSource:
    """The hub token: ``HANGAR_TOKEN`` if set, else the token file (created on first use)."""
    env = os.environ if environ is None else environ
    explicit = env.get("HANGAR_TOKEN", "").strip()
    if explicit:
        hint = f"unset HANGAR_TOKEN to use the token file, or set a long one ({NEW_TOKEN_HINT})"
        return TokenSource(check_token_strength(explicit, "HANGAR_TOKEN", hint), "HANGAR_TOKEN")
    create_exclusive(path, (secrets.token_urlsafe(32) + "\n").encode(), mode=0o600)
    hint = "delete the file and `hangar serve` creates a new one"
    return TokenSource(check_token_strength(read_token_file(path), str(path), hint), str(path))


def read_token_file(path: Path) -> str:
    """Read an existing token file; refuse one that others can read."""
    info = path.stat()
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise CorruptFileError(path=path, problem="token file is readable by others (chmod 600)")
    token = path.read_text("utf-8").strip()
    if not token:
        raise CorruptFileError(path=path, problem="token file is empty")
    return token


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
