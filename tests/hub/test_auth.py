"""Authentication: bearer token on every /api route, token file, browser login, CSRF."""

from __future__ import annotations

import re
import stat
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from hangar.errors import CorruptFileError
from hangar.hub.app import API_ROUTERS
from hangar.hub.auth import SESSION_COOKIE
from hangar.hub.pages.session import safe_next
from hangar.token_file import load_or_create_token, read_token_file


def api_routes(app: FastAPI) -> list[tuple[str, str]]:
    """Every (method, concrete path) under /api, path parameters filled with a sample.

    Walks the routers the app mounts and checks the app's OpenAPI lists the same set, so a
    route added anywhere else would fail this test instead of escaping it.
    """
    found = []
    for router in API_ROUTERS:
        for route in router.routes:
            assert isinstance(route, APIRoute)
            assert route.path.startswith("/api")
            path = re.sub(r"\{[^}]+\}", "HGR-1", route.path)
            found.extend((method, path) for method in sorted(route.methods))
    documented = {
        (method.upper(), re.sub(r"\{[^}]+\}", "HGR-1", path))
        for path, operations in app.openapi()["paths"].items()
        for method in operations
    }
    assert documented == set(found)
    return found


def test_the_app_has_the_documented_api_routes(hub_app: FastAPI) -> None:
    paths = {path for _, path in api_routes(hub_app)}
    for expected in (
        "/api/runtime-work",
        "/api/runtime-work/transcript",
        "/api/runtime-work/search",
        "/api/runtime-work/rename",
        "/api/runtime-work/archived-conversations/list",
        "/api/runtime-work/archived-conversations/cleanup",
        "/api/issues",
        "/api/issues/HGR-1",
        "/api/issues/HGR-1/comments",
        "/api/projects",
        "/api/labels",
        "/api/members",
        "/api/events",
    ):
        assert expected in paths


@pytest.mark.parametrize("header", [None, "Bearer wrong-token", "Basic {t}", "{t}", "Bearer "])
def test_every_api_route_answers_401_without_the_right_token(
    hub_app: FastAPI, anonymous: TestClient, header: str | None, token: str
) -> None:
    routes = api_routes(hub_app)
    assert len(routes) >= 20
    headers = {"Authorization": header.format(t=token)} if header is not None else {}
    for method, path in routes:
        response = anonymous.request(method, path, headers=headers, json={})
        assert response.status_code == 401, (method, path, response.text)
        assert response.json()["error"]["code"] == "unauthorized"
        assert response.headers["www-authenticate"] == "Bearer"


def test_unknown_api_paths_also_answer_401_before_404(anonymous: TestClient) -> None:
    assert anonymous.get("/api/no-such-thing").status_code == 401


def test_the_right_token_is_accepted(client: TestClient) -> None:
    assert client.get("/api/members").status_code == 200


def test_token_file_is_created_once_with_mode_0600(hangar_home: Path) -> None:
    path = hangar_home / "token"
    first = load_or_create_token(path, environ={})
    assert first.origin == str(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(first.token) >= 32
    again = load_or_create_token(path, environ={})
    assert again.token == first.token


def test_hangar_token_env_wins_and_writes_no_file(hangar_home: Path) -> None:
    path = hangar_home / "token"
    source = load_or_create_token(path, environ={"HANGAR_TOKEN": "from-env"})
    assert (source.token, source.origin) == ("from-env", "HANGAR_TOKEN")
    assert not path.exists()


def test_a_token_file_readable_by_others_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("abc\n")
    path.chmod(0o644)
    with pytest.raises(CorruptFileError, match="readable by others"):
        read_token_file(path)


def test_pages_redirect_to_login(anonymous: TestClient) -> None:
    response = anonymous.get("/runtime-tasks?deviceId=d&localTaskId=t", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/login?next=%2Fruntime-tasks%3FdeviceId")


def test_login_with_a_wrong_token_fails(anonymous: TestClient) -> None:
    response = anonymous.post("/login", data={"token": "nope"}, follow_redirects=False)
    assert response.status_code == 401
    assert SESSION_COOKIE not in response.cookies


def test_login_sets_an_httponly_samesite_strict_cookie(anonymous: TestClient, token: str) -> None:
    response = anonymous.post(
        "/login", data={"token": token, "next": "/issues"}, follow_redirects=False
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/issues"
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(SESSION_COOKIE + "=")
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie or "SameSite=Strict" in cookie
    assert token not in cookie


def test_session_cookie_reads_the_api_but_writes_need_the_csrf_token(
    browser_client: TestClient,
) -> None:
    assert browser_client.get("/api/issues").status_code == 200
    refused = browser_client.post("/api/issues", json={"title": "x"})
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "csrf_failed"
    page = browser_client.get("/issues/new")
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    assert csrf
    accepted = browser_client.post(
        "/api/issues", json={"title": "x"}, headers={"X-CSRF-Token": csrf.group(1)}
    )
    assert accepted.status_code == 201


def test_forms_without_the_csrf_token_are_refused(browser_client: TestClient) -> None:
    response = browser_client.post("/issues/new", data={"title": "forged"})
    assert response.status_code == 403
    assert browser_client.get("/api/issues").json()["issues"] == []


def test_a_forged_session_cookie_is_not_a_session(anonymous: TestClient) -> None:
    anonymous.cookies.set(SESSION_COOKIE, "abc.def")
    assert anonymous.get("/api/issues").status_code == 401


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/issues", "/issues"),
        ("//evil.example/x", "/runtime-tasks"),
        ("https://evil.example/", "/runtime-tasks"),
        ("/\\evil.example", "/runtime-tasks"),
        (None, "/runtime-tasks"),
    ],
)
def test_login_only_redirects_inside_the_hub(target: str | None, expected: str) -> None:
    assert safe_next(target) == expected


def test_logout_clears_the_session(browser_client: TestClient) -> None:
    page = browser_client.get("/issues")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert csrf
    response = browser_client.post(
        "/logout", data={"csrf_token": csrf.group(1)}, follow_redirects=False
    )
    assert response.status_code == 303
    browser_client.cookies.clear()
    assert browser_client.get("/api/issues").status_code == 401
