"""The issue tracker API: create, list with filters, get, patch, threaded comments, labels."""

from __future__ import annotations

import threading

from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from hangar.composition import LocalHangar
from hangar.hub.store import issues as issues_repo
from hangar.hub.store.workspaces import ensure_workspace


def create(client: TestClient, **fields: object) -> dict[str, object]:
    response = client.post("/api/issues", json={"title": "An issue", **fields})
    assert response.status_code == 201, response.text
    body: dict[str, object] = response.json()
    return body


def test_create_returns_the_issue_with_its_key(client: TestClient) -> None:
    project = client.post("/api/projects", json={"name": "hangar"}).json()
    member = client.get("/api/members").json()["members"][0]
    first = create(client, title="Build the hub")
    second = create(
        client,
        title="Write docs",
        description="# Docs\n\nAll of them.",
        status="todo",
        priority="high",
        projectId=project["id"],
        labels=["docs", "hub"],
        assigneeId=member["id"],
        parentKey=first["key"],
        startDate="2026-12-01",
        dueDate="2026-12-24",
    )
    assert first["key"] == "HGR-1"
    assert second["key"] == "HGR-2"
    assert second["status"] == "todo"
    assert second["priority"] == "high"
    assert second["labels"] == ["docs", "hub"]
    assert second["parentKey"] == "HGR-1"
    assert second["projectId"] == project["id"]
    assert second["assigneeId"] == member["id"]
    assert (second["startDate"], second["dueDate"]) == ("2026-12-01", "2026-12-24")
    assert client.get("/api/issues/hgr-2").json() == second
    assert {label["name"] for label in client.get("/api/labels").json()["labels"]} == {
        "docs",
        "hub",
    }


def test_defaults_are_backlog_and_no_priority(client: TestClient) -> None:
    issue = create(client)
    assert (issue["status"], issue["priority"], issue["labels"]) == ("backlog", "none", [])


def test_list_filters_combine(client: TestClient) -> None:
    project = client.post("/api/projects", json={"name": "p"}).json()
    create(client, title="alpha bug", status="todo", labels=["bug"], priority="urgent")
    create(client, title="beta", status="done", projectId=project["id"])
    create(client, title="gamma", description="mentions Alpha too", status="todo")

    def keys(**params: str) -> list[str]:
        response = client.get("/api/issues", params=params)
        assert response.status_code == 200, response.text
        return [issue["key"] for issue in response.json()["issues"]]

    assert keys() == ["HGR-3", "HGR-2", "HGR-1"]
    assert keys(status="todo") == ["HGR-3", "HGR-1"]
    assert keys(status="todo,done") == ["HGR-3", "HGR-2", "HGR-1"]
    assert keys(priority="urgent") == ["HGR-1"]
    assert keys(label="bug") == ["HGR-1"]
    assert keys(projectId=project["id"]) == ["HGR-2"]
    assert keys(q="alpha") == ["HGR-3", "HGR-1"]
    assert keys(q="alpha", status="todo", label="bug") == ["HGR-1"]
    assert keys(q="100%") == []


def test_patch_changes_only_the_given_fields(client: TestClient) -> None:
    issue = create(client, title="Old", labels=["a"], priority="low")
    response = client.patch(
        f"/api/issues/{issue['key']}", json={"status": "in_progress", "labels": ["b"]}
    )
    assert response.status_code == 200, response.text
    patched = response.json()
    assert patched["status"] == "in_progress"
    assert patched["labels"] == ["b"]
    assert patched["title"] == "Old"
    assert patched["priority"] == "low"
    cleared = client.patch(f"/api/issues/{issue['key']}", json={"labels": []}).json()
    assert cleared["labels"] == []


def test_validation_errors_are_clear_4xx(client: TestClient) -> None:
    create(client)
    cases = [
        ({"title": ""}, 422, "invalid_request"),
        ({"title": "x", "status": "doing"}, 400, "bad_request"),
        ({"title": "x", "priority": "p0"}, 400, "bad_request"),
        ({"title": "x", "projectId": "nope"}, 400, "bad_request"),
        ({"title": "x", "parentKey": "HGR-99"}, 400, "bad_request"),
        ({"title": "x", "startDate": "2026-12-02", "dueDate": "2026-12-01"}, 400, "bad_request"),
        ({"title": "x", "dueDate": "tomorrow"}, 422, "invalid_request"),
        ({"title": "x", "unknown": 1}, 422, "invalid_request"),
        ({"title": "   "}, 400, "bad_request"),
    ]
    for body, status, code in cases:
        response = client.post("/api/issues", json=body)
        assert response.status_code == status, (body, response.text)
        error = response.json()["error"]
        assert error["code"] == code
        assert error["message"]
    self_parent = client.patch("/api/issues/HGR-1", json={"parentKey": "HGR-1"})
    assert self_parent.status_code == 400
    assert client.get("/api/issues/HGR-404").status_code == 404
    assert client.get("/api/issues/XYZ-1").status_code == 404
    assert client.get("/api/issues?status=bogus").status_code == 400


def test_comments_are_threaded(client: TestClient) -> None:
    issue = create(client)
    url = f"/api/issues/{issue['key']}/comments"
    top = client.post(url, json={"body": "First"})
    assert top.status_code == 201, top.text
    reply = client.post(url, json={"body": "A reply", "parentId": top.json()["id"]}).json()
    assert reply["parentId"] == top.json()["id"]
    assert reply["authorName"]
    listed = client.get(url).json()["comments"]
    assert [c["body"] for c in listed] == ["First", "A reply"]
    other = create(client, title="Other")
    wrong_parent = client.post(
        f"/api/issues/{other['key']}/comments", json={"body": "x", "parentId": reply["id"]}
    )
    assert wrong_parent.status_code == 400
    assert client.post(url, json={"body": ""}).status_code == 422


def test_projects_and_labels(client: TestClient) -> None:
    assert client.post("/api/projects", json={"name": "web"}).status_code == 201
    duplicate = client.post("/api/projects", json={"name": "web"})
    assert duplicate.status_code == 400
    assert [p["name"] for p in client.get("/api/projects").json()["projects"]] == ["web"]
    label = client.post("/api/labels", json={"name": "bug", "color": "#ff0000"})
    assert label.status_code == 201
    assert client.post("/api/labels", json={"name": "x", "color": "red"}).status_code == 422


def test_the_owner_is_the_first_member(client: TestClient) -> None:
    members = client.get("/api/members").json()["members"]
    assert len(members) == 1
    assert members[0]["role"] == "owner"
    assert client.get("/api/workspace").json()["keyPrefix"] == "HGR"


def test_issue_numbers_are_unique_under_concurrency(state: LocalHangar) -> None:
    engine: Engine = state.hub_engine
    workspace = ensure_workspace(engine, "owner")
    keys: list[str] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def worker() -> None:
        try:
            for _ in range(5):
                issue = issues_repo.create_issue(engine, workspace, {"title": "race"})
                with lock:
                    keys.append(issue["key"])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(keys, key=lambda k: int(k.split("-")[1])) == [f"HGR-{n}" for n in range(1, 41)]


def test_ensure_workspace_is_idempotent(state: LocalHangar) -> None:
    first = ensure_workspace(state.hub_engine, "me")
    second = ensure_workspace(state.hub_engine, "someone else")
    assert first == second
