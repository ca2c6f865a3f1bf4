"""``GET /api/runtime-work`` is built once per change of the device's list (not per request)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from hangar.hub.context import HubContext

from .sessions import ClaudeSession, sample_home


def test_the_body_is_rebuilt_only_when_the_list_changes(
    isolated_home: Path, client: TestClient, hub_app: FastAPI
) -> None:
    sample_home(isolated_home)
    ctx = hub_app.state.hub
    assert isinstance(ctx, HubContext)
    first = client.get("/api/runtime-work")
    assert first.status_code == 200 and first.headers["content-type"] == "application/json"
    for _ in range(5):
        again = client.get("/api/runtime-work")
        assert again.content == first.content
    assert ctx.runtime_view.builds == 1

    task = first.json()["projects"][0]["tasks"][0]
    address = {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]}
    assert client.post("/api/runtime-work/archived-conversations/archive", json=address).is_success
    after = client.get("/api/runtime-work").json()
    listed = [t["localTaskId"] for p in after["projects"] for t in p["tasks"]]
    assert task["localTaskId"] not in listed
    assert ctx.runtime_view.builds == 2

    # A new session file is a change too (no watcher here: every list rescans).
    ClaudeSession(isolated_home, "55555555-eeee-4eee-8eee-000000000005", "/srv/new").user(
        "A new one"
    ).assistant("Sure.")
    newest = client.get("/api/runtime-work").json()
    assert "new" in {p["name"] for p in newest["projects"]}
    assert ctx.runtime_view.builds == 3
