"""Hardening item 8: the runtime-work API and the executor RPCs decode strictly.

Loose coercion (``"50"`` for an integer, ``true`` for an integer, ``"yes"`` for a boolean) and
unknown fields are refused with 422 ``invalid_request`` naming the field, never silently
accepted; the offending value is never echoed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from hangar.errors import HangarError
from hangar.executor.service import Executor

from .sessions import ClaudeSession
from .test_errors import assert_error_shape

DEVICE = {"deviceId": "d", "localTaskId": "t"}


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/runtime-work/transcript", {**DEVICE, "limit": "50"}, "limit"),
        ("/api/runtime-work/transcript", {**DEVICE, "limit": True}, "limit"),
        ("/api/runtime-work/transcript", {**DEVICE, "refresh": "yes"}, "refresh"),
        ("/api/runtime-work/transcript", {**DEVICE, "limit": 0}, "limit"),
        ("/api/runtime-work/transcript", {**DEVICE, "colour": "red"}, "colour"),
        ("/api/runtime-work/transcript", {"deviceId": "d"}, "localTaskId"),
        ("/api/runtime-work/search", {"query": "x", "includeArchived": "true"}, "includeArchived"),
        ("/api/runtime-work/search", {"query": "x", "limit": 5.5}, "limit"),
        ("/api/runtime-work/search", {"query": 7}, "query"),
        ("/api/runtime-work/rename", {**DEVICE, "title": ["x"]}, "title"),
        ("/api/runtime-work/archived-conversations/archive-all", {"kind": "some"}, "kind"),
        ("/api/runtime-work/archived-conversations/delete-bulk", {"items": []}, "items"),
    ],
)
def test_hardening_8_loose_types_are_refused_naming_the_field(
    client: TestClient, path: str, body: dict[str, object], field: str
) -> None:
    response = client.post(path, json=body)
    assert response.status_code == 422, response.text
    error = assert_error_shape(response.json())
    assert error["code"] == "invalid_request"
    assert field in str(error["message"])
    problems = error["details"]["problems"]  # type: ignore[index]
    assert field in problems[0]["field"]


def test_hardening_8_a_huge_wrong_value_is_not_echoed(client: TestClient) -> None:
    huge = "9" * 200_000
    response = client.post("/api/runtime-work/transcript", json={**DEVICE, "limit": huge})
    assert response.status_code == 422
    assert len(response.content) < 2_000


def test_hardening_8_refresh_false_reaches_the_executor(
    client: TestClient, isolated_home: Path
) -> None:
    """One default per field: ``refresh: false`` serves the cached page without reading the
    grown file (it used to be lost because the hub's default differed from the executor's);
    the default (``true``) reads what was appended."""
    session = ClaudeSession(isolated_home, "22222222-bbbb-4bbb-8bbb-000000000002", "/srv/p")
    session.user("first question").assistant("first answer")
    (task,) = [t for p in client.get("/api/runtime-work").json()["projects"] for t in p["tasks"]]
    address = {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]}
    first = client.post("/api/runtime-work/transcript", json=address).json()
    assert first["totalMessages"] == 2
    session.user("second question").assistant("second answer")
    cached = client.post("/api/runtime-work/transcript", json={**address, "refresh": False})
    assert cached.json()["totalMessages"] == 2
    fresh = client.post("/api/runtime-work/transcript", json=address)
    assert fresh.json()["totalMessages"] == 4


@pytest.mark.parametrize(
    "payload",
    [
        {"localTaskId": "x", "limit": "9"},
        {"localTaskId": "x", "limit": True},
        {"localTaskId": "x", "refresh": 1},
        {"localTaskId": 5},
        {},
    ],
)
def test_hardening_8_the_executor_decodes_strictly_too(
    payload: dict[str, object], isolated_home: object
) -> None:
    executor = Executor.open()
    try:
        with pytest.raises(HangarError) as caught:
            executor.handle("runtime.tasks.transcript", payload)
        assert caught.value.code == "invalid_request"
    finally:
        executor.close()


def test_openapi_describes_the_msgspec_bodies(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    body = spec["paths"]["/api/runtime-work/transcript"]["post"]["requestBody"]
    schema = body["content"]["application/json"]["schema"]
    assert {"deviceId", "localTaskId", "limit", "refresh"} <= set(schema["properties"])
    assert set(schema["required"]) == {"deviceId", "localTaskId"}
