"""Browser sessions are kept server-side and end on logout (hardening item 11)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from hangar.hub.auth import SESSION_COOKIE, Authenticator
from hangar.hub.store.browser_sessions import BrowserSessions
from hangar.hub.store.database import open_hub_database
from hangar.hub.store.schema import browser_sessions

from .postgres_server import postgres_server, unavailable_reason

LONG_TOKEN = "a-hub-token-of-at-least-32-characters"


def _logout(client: TestClient) -> None:
    page = client.get("/issues")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert csrf
    response = client.post("/logout", data={"csrf_token": csrf.group(1)}, follow_redirects=False)
    assert response.status_code == 303


def test_hardening_11_the_old_cookie_is_refused_after_logout(browser_client: TestClient) -> None:
    cookie = browser_client.cookies.get(SESSION_COOKIE)
    assert cookie
    assert browser_client.get("/api/issues").status_code == 200
    _logout(browser_client)
    browser_client.cookies.set(SESSION_COOKIE, cookie)  # a copy of the cookie kept by anyone
    assert browser_client.get("/api/issues").status_code == 401
    page = browser_client.get("/issues", follow_redirects=False)
    assert page.status_code == 303
    assert page.headers["location"].startswith("/login")


def test_hardening_11_logging_out_one_browser_keeps_the_others(
    browser_client: TestClient, anonymous: TestClient, token: str
) -> None:
    response = anonymous.post("/login", data={"token": token}, follow_redirects=False)
    assert response.status_code == 303
    _logout(browser_client)
    assert anonymous.get("/api/issues").status_code == 200


def test_hardening_11_the_database_holds_no_usable_cookie(
    browser_client: TestClient, hub_engine_of_app: Engine
) -> None:
    cookie = browser_client.cookies.get(SESSION_COOKIE)
    assert cookie
    with hub_engine_of_app.connect() as conn:
        stored = [row.id_hash for row in conn.execute(sa.select(browser_sessions))]
    assert len(stored) == 1 and cookie not in stored[0]


@pytest.fixture
def hub_engine_of_app(state: object) -> Engine:
    engine = state.hub_engine  # type: ignore[attr-defined]
    assert isinstance(engine, Engine)
    return engine


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def engine(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    """The hub database on SQLite and on a real PostgreSQL (skipped where it is missing),
    one per module: the tests below use sessions of their own."""
    if request.param == "sqlite":
        opened = open_hub_database(tmp_path_factory.mktemp("sessions") / "hub.db")
        yield opened
        opened.dispose()
        return
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    with postgres_server() as url:
        opened = open_hub_database(url)
        try:
            yield opened
        finally:
            opened.dispose()


def test_hardening_11_sessions_live_until_revoked_or_expired(engine: Engine) -> None:
    sessions = BrowserSessions(engine, cache_seconds=0)
    auth = Authenticator(LONG_TOKEN, sessions)
    first, second = auth.new_session_cookie(), auth.new_session_cookie()
    assert auth.session_id(first) == first and auth.session_id(second) == second
    auth.end_session(first)
    assert auth.session_id(first) is None
    assert auth.session_id(second) == second
    assert auth.session_id("not-a-session") is None and auth.session_id(None) is None

    later = datetime.now(UTC) + timedelta(days=31)
    digest = "d" * 64
    sessions.create(digest)
    assert sessions.is_valid(digest)
    assert not sessions.is_valid(digest, now=later)
    sessions.create("e" * 64, now=later)  # creating a session purges the dead ones
    with engine.connect() as conn:
        left = {row.id_hash for row in conn.execute(sa.select(browser_sessions))}
    assert "e" * 64 in left
    assert digest not in left  # expired
    assert not [row for row in left if sessions.is_valid(row, now=later) is False]


def test_hardening_11_a_new_hub_token_ends_every_session(engine: Engine) -> None:
    sessions = BrowserSessions(engine, cache_seconds=0)
    cookie = Authenticator(LONG_TOKEN, sessions).new_session_cookie()
    assert Authenticator(LONG_TOKEN, sessions).session_id(cookie) == cookie
    assert Authenticator(LONG_TOKEN + "-rotated", sessions).session_id(cookie) is None


def test_hardening_11_a_revocation_is_seen_at_once_despite_the_cache(engine: Engine) -> None:
    auth = Authenticator(LONG_TOKEN, BrowserSessions(engine, cache_seconds=3600))
    cookie = auth.new_session_cookie()
    assert auth.session_id(cookie) == cookie
    auth.end_session(cookie)
    assert auth.session_id(cookie) is None
