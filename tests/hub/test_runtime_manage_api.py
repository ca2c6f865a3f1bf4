"""Search, rename, archive, unarchive, delete and cleanup through the hub's routes.

The hub forwards to the real in-process executor (RW-158) over real Claude session files.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hangar.composition import LocalHangar
from hangar.hub.runtime_work import project_id

from .sessions import ClaudeSession, sample_home


@pytest.fixture
def sessions(isolated_home: Path) -> dict[str, ClaudeSession]:
    return sample_home(isolated_home)


def tasks(client: TestClient) -> dict[str, dict[str, Any]]:
    body = client.get("/api/runtime-work").json()
    listed = [t for p in body["projects"] for t in p["tasks"]] + body["conversations"]
    return {t["title"]: t for t in listed}


def address(task: dict[str, Any]) -> dict[str, str]:
    return {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]}


def post(client: TestClient, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/api/runtime-work" + path, json=body)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def test_search_finds_a_message_and_its_index(
    client: TestClient, sessions: dict[str, ClaudeSession]
) -> None:
    """RW-048/051/052/055: results carry the task address, snippet and message index."""
    target = tasks(client)["Set up the project"]
    results = post(client, "/search", {"query": "zebra-needle"})["results"]
    assert len(results) == 1
    hit = results[0]
    assert (hit["deviceId"], hit["localTaskId"]) == (target["deviceId"], target["localTaskId"])
    assert hit["messageIndex"] == 142
    assert "zebra" in hit["snippet"]
    assert hit["deviceName"]
    assert hit["workspacePath"] == target["workspacePath"]
    assert hit["updatedAt"] == target["updatedAt"]
    many = post(client, "/search", {"query": "item", "limit": 1})["results"]
    assert len(many) == 1


def test_search_filters_by_project(client: TestClient, sessions: dict[str, ClaudeSession]) -> None:
    """RW-057: the hub keeps only results of the given Project."""
    beta = tasks(client)["Say hello"]
    beta_id = project_id(beta["deviceId"], beta["groupWorkspacePath"])
    assert post(client, "/search", {"query": "hello", "projectId": beta_id})["results"]
    assert post(client, "/search", {"query": "zebra-needle", "projectId": beta_id})["results"] == []


def test_rename_changes_the_title(client: TestClient, sessions: dict[str, ClaudeSession]) -> None:
    task = tasks(client)["Say hello"]
    post(client, "/rename", {**address(task), "title": "Greeting"})
    assert "Greeting" in tasks(client)
    assert (
        client.post("/api/runtime-work/rename", json={**address(task), "title": ""}).status_code
        == 422
    )


def test_archive_moves_a_task_to_the_archived_list_and_back(
    client: TestClient, sessions: dict[str, ClaudeSession], state: LocalHangar
) -> None:
    """RW-157/159/160/161/166/168: archive → archived list with per-Project counts →
    unarchive; the archived state is the device's, the hub's database never holds it."""
    task = tasks(client)["Work on feature x"]
    post(client, "/archived-conversations/archive", address(task))
    assert "Work on feature x" not in tasks(client)
    with sqlite3.connect(state.executor.settings.paths.hub_db) as conn:
        central = "\n".join(conn.iterdump())
    assert "CREATE TABLE alembic_version" in central and task["localTaskId"] not in central
    archived = post(client, "/archived-conversations/list", {})
    assert [i["title"] for i in archived["items"]] == ["Work on feature x"]
    assert archived["projectGroups"] == [
        {
            "projectId": project_id(task["deviceId"], "/srv/projects/alpha"),
            "projectName": "alpha",
            "count": 1,
        }
    ]
    found = post(client, "/search", {"query": "feature", "includeArchived": True})["results"]
    assert [r["localTaskId"] for r in found] == [task["localTaskId"]]
    assert post(client, "/search", {"query": "feature"})["results"] == []
    post(client, "/archived-conversations/unarchive", address(task))
    assert "Work on feature x" in tasks(client)
    assert post(client, "/archived-conversations/list", {})["total"] == 0


def test_archive_project_archives_every_task_of_it(
    client: TestClient, sessions: dict[str, ClaudeSession]
) -> None:
    task = tasks(client)["Set up the project"]
    pid = project_id(task["deviceId"], "/srv/projects/alpha")
    reply = post(
        client,
        "/archived-conversations/archive-project",
        {"deviceId": task["deviceId"], "projectId": pid},
    )
    assert reply["archived"] == 2
    assert set(tasks(client)) == {"Say hello"}
    unknown = client.post(
        "/api/runtime-work/archived-conversations/archive-project",
        json={"deviceId": task["deviceId"], "projectId": "nope"},
    )
    assert unknown.status_code == 400


def test_delete_hides_at_once_and_cleanup_preview_answers(
    client: TestClient, sessions: dict[str, ClaudeSession]
) -> None:
    """RW-173: delete writes a tombstone and the list hides the task immediately."""
    task = tasks(client)["Say hello"]
    post(client, "/archived-conversations/archive", address(task))
    preview = post(client, "/archived-conversations/cleanup-preview", {"items": [address(task)]})
    assert preview["devices"][0]["deviceId"] == task["deviceId"]
    assert "items" in preview["devices"][0]
    reply = post(client, "/archived-conversations/delete", address(task))
    assert reply["deleted"] is True
    assert post(client, "/archived-conversations/list", {})["total"] == 0
    assert "Say hello" not in tasks(client)
    assert reply["cleanup"] == {"background": True}  # files go to the trash later


def test_delete_bulk_goes_in_batches(
    client: TestClient, sessions: dict[str, ClaudeSession]
) -> None:
    listed = tasks(client)
    items = [address(listed["Say hello"]), address(listed["Work on feature x"])]
    for item in items:
        post(client, "/archived-conversations/archive", item)
    reply = post(client, "/archived-conversations/delete-bulk", {"items": items})
    assert reply["deleted"] == 2
    assert post(client, "/archived-conversations/list", {})["total"] == 0
