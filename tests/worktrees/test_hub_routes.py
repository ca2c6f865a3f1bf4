"""``/api/runtime-work/worktrees/*`` forwards to the device's real executor."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hangar.composition import LocalHangar

from .conftest import ClaudeSession

TOKEN = "worktree-test-token-0123456789-abcdef"


@pytest.fixture
def client(hangar_home: Path) -> Iterator[TestClient]:
    hangar = LocalHangar.open()
    with TestClient(
        hangar.create_app(TOKEN),
        base_url="http://127.0.0.1",
        headers={"Authorization": f"Bearer {TOKEN}"},
        raise_server_exceptions=False,
    ) as test_client:
        yield test_client
    hangar.close()


def _device(client: TestClient) -> str:
    devices = client.get("/api/runtime-work").json()["devices"]
    return str(devices[0]["deviceId"])


def _post(client: TestClient, path: str, body: dict[str, Any], status: int = 200) -> Any:
    response = client.post("/api/runtime-work/worktrees" + path, json=body)
    assert response.status_code == status, response.text
    return response.json()


def test_the_worktree_lifecycle_through_the_api(
    client: TestClient, hangar_home: Path, repo: Path, claude_session: ClaudeSession
) -> None:
    """RW-196: settings, prepare, list (with tasks), delete (archives), restore, prune."""
    device = _device(client)
    settings = _post(client, "/settings/get", {"deviceId": device})
    assert settings["resolvedRoot"] == str(hangar_home / "worktrees")
    made = _post(
        client, "/prepare", {"deviceId": device, "sourcePath": str(repo), "worktreeId": "api-1"}
    )
    wt = Path(made["path"])
    claude_session(wt)
    (wt / "draft.md").write_text("from the api test\n")
    (listed,) = _post(client, "/list", {})["devices"]
    assert listed["deviceId"] == device
    (worktree,) = listed["repositories"][0]["worktrees"]
    assert worktree["worktreeId"] == "api-1" and len(worktree["tasks"]) == 1
    gone = _post(client, "/delete", {"deviceId": device, "worktreeId": "api-1"})
    assert gone["deleted"] and gone["archivedTaskIds"] == [worktree["tasks"][0]["localTaskId"]]
    assert not wt.exists()
    back = _post(client, "/restore", {"deviceId": device, "path": str(wt)})
    assert back["restored"] and (wt / "draft.md").read_text() == "from the api test\n"
    changed = _post(client, "/settings/update", {"deviceId": device, "keepCount": 0})
    assert changed["keepCount"] == 0 and changed["pruned"]["removed"] == ["api-1"]
    assert _post(client, "/prune", {"deviceId": device})["removed"] == []


def test_errors_come_back_in_the_one_error_shape(client: TestClient, repo: Path) -> None:
    device = _device(client)
    bad_id = _post(
        client,
        "/prepare",
        {"deviceId": device, "sourcePath": str(repo), "worktreeId": "../../etc"},
        status=400,
    )
    assert bad_id["error"]["code"] == "unsafe_path"
    _post(client, "/prepare", {"deviceId": device, "sourcePath": str(repo), "worktreeId": "one"})
    again = _post(
        client,
        "/prepare",
        {"deviceId": device, "sourcePath": str(repo), "worktreeId": "one"},
        status=409,
    )
    assert again["error"]["code"] == "worktree_target_conflict"
    missing = _post(client, "/delete", {"deviceId": device, "worktreeId": "nope"}, status=404)
    assert missing["error"]["code"] == "not_found"
    both = _post(client, "/delete", {"deviceId": device}, status=400)
    assert "exactly one of worktreeId and path" in both["error"]["message"]
    unknown = _post(client, "/settings/get", {"deviceId": "elsewhere"}, status=404)
    assert unknown["error"]["code"] == "device_unavailable"
    extra = _post(client, "/prune", {"deviceId": device, "force": True}, status=422)
    assert extra["error"]["code"] == "invalid_request"
    too_many = _post(client, "/settings/update", {"deviceId": device, "keepCount": -1}, 422)
    assert too_many["error"]["code"] == "invalid_request"


def test_a_permanent_worktree_is_a_project_of_its_own_at_once(
    client: TestClient, repo: Path
) -> None:
    """RW-206: right after a permanent worktree is prepared, its directory is listed as a
    project of its own (no task has run in it yet) and offered for a new task; a worktree
    made for one task is not; open pages are told to list again."""
    device = _device(client)
    published: list[tuple[str, dict[str, Any]]] = []
    client.app.state.hub.events.add_listener(lambda name, data: published.append((name, data)))
    kept = _post(client, "/prepare", {"deviceId": device, "sourcePath": str(repo),
                                      "worktreeId": "kept", "permanent": True})  # fmt: skip
    other = _post(client, "/prepare", {"deviceId": device, "sourcePath": str(repo),
                                       "worktreeId": "for-a-task"})  # fmt: skip
    assert [d for name, d in published if name == "runtime.changed"] == [
        {"deviceId": device, "reason": "project"}
    ]
    listed = client.get("/api/runtime-work").json()["projects"]
    assert [(p["workspacePath"], p["tasks"]) for p in listed] == [(kept["path"], [])]
    (offered,) = client.get("/api/runtime-work/projects").json()["devices"]
    paths = [p["workspacePath"] for p in offered["projects"]]
    assert kept["path"] in paths and other["path"] not in paths
