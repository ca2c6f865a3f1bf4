"""Browser sessions of the web UI, kept in the hub database so they can be ended server-side.

Contracts:

- A session is stored by a digest of its id (:mod:`hangar.hub.auth` keys that digest with the
  hub token), never by the id itself: reading ``hub.db`` gives no usable cookie, and a new hub
  token ends every session.
- :meth:`BrowserSessions.is_valid` is true from :meth:`~BrowserSessions.create` until the
  session expires (``max_age`` after it was created) or is revoked (logout). Expired and revoked
  rows are deleted when the next session is created, so the table stays small.
- A positive answer is remembered in this process for ``cache_seconds`` (so a page's burst of
  requests reads the database once). Revoking through this process takes effect at once; a
  revocation by another hub replica on the same database takes effect within that time.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from hangar.hub.store import schema
from hangar.hub.store.writes import transaction

SESSION_MAX_AGE = timedelta(days=30)
CACHE_SECONDS = 10.0
CACHE_LIMIT = 1024

sessions_t = schema.browser_sessions


def _utc(value: datetime) -> datetime:
    """SQLite hands back naive datetimes that were stored as UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


class BrowserSessions:
    """The session table of one hub database (see the module docstring)."""

    def __init__(
        self,
        engine: Engine,
        max_age: timedelta = SESSION_MAX_AGE,
        cache_seconds: float = CACHE_SECONDS,
    ) -> None:
        self.engine = engine
        self.max_age = max_age
        self.cache_seconds = cache_seconds
        self._recent: dict[str, tuple[float, datetime]] = {}
        """id digest → (monotonic time of the check, expiry) of sessions found valid."""
        self._lock = threading.Lock()

    def create(self, id_hash: str, now: datetime | None = None) -> datetime:
        """Store a new session; returns when it expires."""
        stamp = now or datetime.now(UTC)
        expires = stamp + self.max_age
        with transaction(self.engine) as conn:
            conn.execute(
                sa.delete(sessions_t).where(
                    sa.or_(sessions_t.c.expires_at <= stamp, sessions_t.c.revoked_at.is_not(None))
                )
            )
            conn.execute(
                sa.insert(sessions_t).values(id_hash=id_hash, created_at=stamp, expires_at=expires)
            )
        return expires

    def is_valid(self, id_hash: str, now: datetime | None = None) -> bool:
        stamp = now or datetime.now(UTC)
        with self._lock:
            recent = self._recent.get(id_hash)
        if recent is not None and time.monotonic() - recent[0] < self.cache_seconds:
            return stamp < recent[1]
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(sessions_t.c.expires_at, sessions_t.c.revoked_at).where(
                    sessions_t.c.id_hash == id_hash
                )
            ).first()
        if row is None or row.revoked_at is not None or _utc(row.expires_at) <= stamp:
            return False
        with self._lock:
            if len(self._recent) >= CACHE_LIMIT:
                self._recent.clear()
            self._recent[id_hash] = (time.monotonic(), _utc(row.expires_at))
        return True

    def revoke(self, id_hash: str, now: datetime | None = None) -> bool:
        """End a session; ``False`` when there was no live session with that digest."""
        with self._lock:
            self._recent.pop(id_hash, None)
        with transaction(self.engine) as conn:
            result = conn.execute(
                sa.update(sessions_t)
                .where(sessions_t.c.id_hash == id_hash, sessions_t.c.revoked_at.is_(None))
                .values(revoked_at=now or datetime.now(UTC))
            )
        return bool(result.rowcount)
