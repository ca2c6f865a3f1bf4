"""Short hub tokens are refused; failed tokens are slowed down per address (hardening 14)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from hangar.hub.auth_throttle import BURST, FailureThrottle
from hangar.token_file import WeakTokenError, load_or_create_token


@pytest.mark.parametrize("short", ["x", "abc", "a" * 31])
def test_hardening_14_a_short_hangar_token_is_refused(hangar_home: Path, short: str) -> None:
    with pytest.raises(WeakTokenError) as caught:
        load_or_create_token(hangar_home / "token", environ={"HANGAR_TOKEN": short})
    message = str(caught.value)
    assert message.startswith("HANGAR_TOKEN: the token has")
    assert "at least 32" in message and "unset HANGAR_TOKEN" in message
    assert load_or_create_token(hangar_home / "t2", environ={"HANGAR_TOKEN": "a" * 32})


def test_hardening_14_a_short_token_file_is_refused(hangar_home: Path) -> None:
    path = hangar_home / "token"
    hangar_home.mkdir()
    path.write_text("abc\n")
    path.chmod(0o600)
    with pytest.raises(WeakTokenError, match=re.escape(f"{path}: the token has 3 characters")):
        load_or_create_token(path, environ={})


def test_hardening_14_serve_stops_with_one_line_for_a_short_token(hangar_home: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hangar", "serve", "--port", "0"],
        env=dict(os.environ, HANGAR_TOKEN="x"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr.startswith("hangar: error: HANGAR_TOKEN: the token has 1 characters")
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1


@pytest.fixture
def clock() -> list[float]:
    return [1000.0]


@pytest.fixture
def throttled_app(hub_app: FastAPI, clock: list[float]) -> FastAPI:
    hub_app.state.hub.auth.throttle = FailureThrottle(clock=lambda: clock[0])
    return hub_app


def _client(app: FastAPI, address: str, token: str | None = None) -> TestClient:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return TestClient(
        app,
        base_url="http://127.0.0.1",
        headers=headers,
        client=(address, 50000),
        raise_server_exceptions=False,
    )


@pytest.fixture
def guesser(throttled_app: FastAPI) -> Iterator[TestClient]:
    with _client(throttled_app, "10.1.1.1") as client:
        yield client


def test_hardening_14_repeated_wrong_tokens_are_slowed_down_per_address(
    throttled_app: FastAPI, guesser: TestClient, token: str, clock: list[float]
) -> None:
    wrong = {"Authorization": "Bearer " + "w" * 40}
    answers = [guesser.get("/api/issues", headers=wrong).status_code for _ in range(BURST + 2)]
    assert answers == [401] * BURST + [429, 429]
    refused = guesser.get("/api/issues", headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 429  # a right guess now cannot be told from a wrong one
    assert refused.json()["error"]["code"] == "too_many_failures"
    assert int(refused.headers["retry-after"]) >= 1
    with _client(throttled_app, "10.2.2.2", token) as other:  # another address: unaffected
        assert other.get("/api/issues").status_code == 200
        assert other.get("/api/issues", headers=wrong).status_code == 401
    clock[0] += 1.0  # the budget refills: one more attempt per second
    assert (
        guesser.get("/api/issues", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    )
    assert guesser.get("/api/issues", headers=wrong).status_code == 401
    assert guesser.get("/api/issues", headers=wrong).status_code == 429


def test_hardening_14_failed_logins_are_slowed_down_too(
    throttled_app: FastAPI, guesser: TestClient, token: str
) -> None:
    for _ in range(BURST):
        assert guesser.post("/login", data={"token": "nope"}).status_code == 401
    refused = guesser.post("/login", data={"token": token}, follow_redirects=False)
    assert refused.status_code == 429
    assert "Too many wrong tokens" in refused.text
    assert "retry-after" in refused.headers


def test_hardening_14_requests_without_credentials_and_ended_run_tokens_spend_nothing(
    throttled_app: FastAPI, guesser: TestClient, token: str
) -> None:
    with _client(throttled_app, "10.3.3.3", token) as owner:
        key = owner.post("/api/issues", json={"title": "t"}).json()["key"]
        run = owner.post(f"/api/issues/{key}/local-runs", json={"cliName": "codex"}).json()
        owner.patch(f"/api/local-runs/{run['id']}", json={"status": "completed"})
    ended = {"Authorization": f"Bearer {run['runToken']}"}
    for _ in range(BURST * 2):
        assert guesser.get("/api/issues").status_code == 401
        assert guesser.get(f"/api/issues/{key}", headers=ended).status_code == 401
    assert (
        guesser.get("/api/issues", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    )


def test_hardening_14_the_throttle_remembers_a_bounded_number_of_addresses() -> None:
    now = [0.0]
    throttle = FailureThrottle(burst=2, per_second=1.0, max_clients=100, clock=lambda: now[0])
    for number in range(10_000):
        throttle.failed(f"10.0.{number // 256}.{number % 256}")
    assert len(throttle) == 100
    throttle.failed("a")
    throttle.failed("a")
    assert throttle.retry_after("a") == 1
    now[0] += 5
    assert throttle.retry_after("a") == 0
    assert "a" not in throttle._budgets  # a refilled budget is forgotten
