"""Fixtures for local-run tests: the real hub app over a real hub database in tmp."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from hangar.composition import LocalHangar
from hangar.testing.agent_clis import agent_clis_dir, missing_binaries
from hangar.testing.pytest_plugin import REQUIRE_ENV
from hangar.testing.sandbox import namespace_support

from .sandbox_hub import SandboxHub

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


def _client(app: FastAPI, token: str | None) -> TestClient:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return TestClient(
        app, base_url="http://127.0.0.1", headers=headers, raise_server_exceptions=False
    )


@pytest.fixture
def client(hub_app: FastAPI) -> Iterator[TestClient]:
    with _client(hub_app, TOKEN) as test_client:
        yield test_client


@pytest.fixture
def client_for(hub_app: FastAPI):  # type: ignore[no-untyped-def]
    """Make a client that authenticates with another token (e.g. a run-scoped one)."""
    opened: list[TestClient] = []

    def make(token: str) -> TestClient:
        test_client = _client(hub_app, token)
        opened.append(test_client)
        return test_client

    yield make
    for test_client in opened:
        test_client.close()


@pytest.fixture
def browser_client(hub_app: FastAPI) -> Iterator[TestClient]:
    """A client logged in through the web form (session cookie, no bearer token)."""
    with _client(hub_app, None) as test_client:
        response = test_client.post(
            "/login", data={"token": TOKEN, "next": "/issues"}, follow_redirects=False
        )
        assert response.status_code == 303
        yield test_client


@pytest.fixture
def sandbox_hub(tmp_path: Path) -> Iterator[SandboxHub]:
    """A started :class:`SandboxHub` (skips where the sandbox or the CLIs are unavailable,
    fails instead under ``HANGAR_REQUIRE_REAL_AGENTS=1``); nothing is left running after it."""
    reason = namespace_support()
    missing = missing_binaries()
    if reason is None and missing:
        reason = f"agent CLIs {missing} not installed in {agent_clis_dir()} (make agents)"
    if reason is not None:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but the sandbox cannot run: {reason}", pytrace=False)
        pytest.skip(reason)
    hub = SandboxHub(tmp_path)
    with hub:
        yield hub
    assert hub.sandbox.namespace_pids() == [], "processes left in the sandbox"


@pytest.fixture
def live_hub(hub_app: FastAPI) -> Iterator[str]:
    """The real hub app served by uvicorn on a free loopback port, in this process; yields
    its URL (the user token is ``TOKEN``). Stopped (and joined) after the test."""
    import threading

    import uvicorn

    from hangar.hub.server import bind_socket, url_for

    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(
        uvicorn.Config(hub_app, log_level="warning", access_log=False, lifespan="off")
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the hub did not start")
            thread.join(0.02)
        yield url_for("127.0.0.1", int(sock.getsockname()[1]))
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()
