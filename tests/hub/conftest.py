"""Fixtures for hub tests: a real hub database in the test's HANGAR_HOME, the real app.

``hub_app`` is built by the real factory over the real state; runtime-work routes reach the
device through this hangar's own executor, in process (see ``hangar.composition``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from hangar.composition import LocalHangar

TOKEN = "test-token-0123456789"


@pytest.fixture
def state(hangar_home: object) -> Iterator[LocalHangar]:
    """This test's local hangar: the executor and the hub database, wired together."""
    opened = LocalHangar.open()
    yield opened
    opened.close()


@pytest.fixture
def hub_app(state: LocalHangar) -> FastAPI:
    return state.create_app(TOKEN)


@pytest.fixture
def client(hub_app: FastAPI) -> Iterator[TestClient]:
    """An API client with the bearer token."""
    with TestClient(
        hub_app,
        base_url="http://127.0.0.1",
        headers={"Authorization": f"Bearer {TOKEN}"},
        raise_server_exceptions=False,
    ) as test_client:
        yield test_client


@pytest.fixture
def anonymous(hub_app: FastAPI) -> Iterator[TestClient]:
    """A client without credentials."""
    with TestClient(
        hub_app, base_url="http://127.0.0.1", raise_server_exceptions=False
    ) as test_client:
        yield test_client


@pytest.fixture
def browser_client(hub_app: FastAPI) -> Iterator[TestClient]:
    """A client logged in through the web form (session cookie, no bearer token)."""
    with TestClient(
        hub_app, base_url="http://127.0.0.1", raise_server_exceptions=False
    ) as test_client:
        response = test_client.post(
            "/login", data={"token": TOKEN, "next": "/issues"}, follow_redirects=False
        )
        assert response.status_code == 303
        yield test_client


@pytest.fixture
def token() -> str:
    return TOKEN
