"""Runtime-work routes over the real in-process executor and real Claude session files."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hangar.composition import LocalHangar

from .sessions import ClaudeSession, sample_home


@pytest.fixture
def sessions(isolated_home: Path) -> dict[str, ClaudeSession]:
    made = sample_home(isolated_home)
    chat = ClaudeSession(
        isolated_home,
        "44444444-dddd-4ddd-8ddd-000000000004",
        "/home/u/Documents/Codex/2026-11-20/chat",
    )
    chat.user("Just a chat").assistant("Chatting.")
    made["chat"] = chat
    return made


def view(client: TestClient) -> dict[str, Any]:
    response = client.get("/api/runtime-work")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def task_titled(body: dict[str, Any], prefix: str) -> dict[str, Any]:
    tasks = [t for p in body["projects"] for t in p["tasks"]] + body["conversations"]
    return next(t for t in tasks if t["title"].startswith(prefix))


def test_list_groups_projects_worktrees_and_conversations(
    client: TestClient, sessions: dict[str, ClaudeSession], state: LocalHangar
) -> None:
    """RW-004/005/006/014/015/036/037/038/040/041/319/320/321: light grouping; RW-002, RW-003,
    RW-008, RW-030: no hub table behind it (the hub's projects table stays empty and no task
    is stored there)."""
    body = view(client)
    assert body["errors"] == []
    assert len(body["devices"]) == 1
    projects = {p["name"]: p for p in body["projects"]}
    assert set(projects) == {"alpha", "beta"}
    alpha = projects["alpha"]
    assert alpha["workspacePath"] == "/srv/projects/alpha"
    titles = [t["title"] for t in alpha["tasks"]]
    assert titles == ["Work on feature x", "Set up the project"]  # newest first
    worktree = alpha["tasks"][0]
    assert worktree["workspaceKind"] == "worktree"
    assert worktree["worktreeId"] == "feature-x"
    assert worktree["workspacePath"].endswith("/.claude/worktrees/feature-x")
    assert worktree["groupWorkspacePath"] == "/srv/projects/alpha"
    assert alpha["tasks"][1]["workspaceKind"] == "workspace"
    assert [t["title"] for t in body["conversations"]] == ["Just a chat"]
    assert body["conversations"][0]["workspaceKind"] == "chat"
    every = [t for p in body["projects"] for t in p["tasks"]] + body["conversations"]
    assert all(t["deviceId"] and t["localTaskId"] for t in every)
    assert len(every) == len(sessions)  # every session is in one of the two groups
    assert set(body) == {"devices", "errors", "projects", "conversations"}  # no third group
    hub_rows = "\n".join(_dump(state.executor.settings.paths.hub_db))
    assert 'CREATE TABLE "projects"' in hub_rows or "CREATE TABLE projects" in hub_rows
    assert 'INSERT INTO "projects"' not in hub_rows and "alpha" not in hub_rows
    assert not [t["localTaskId"] for t in every if t["localTaskId"] in hub_rows]


def test_a_single_device_shows_no_address(
    client: TestClient, sessions: dict[str, ClaudeSession]
) -> None:
    """RW-045: with one device no IP/host follows the project names."""
    body = view(client)
    assert [d["label"] for d in body["devices"]] == [None]
    assert all(p["deviceLabel"] is None for p in body["projects"])


def test_conversations_are_present_even_when_empty(client: TestClient) -> None:
    """RW-322: the Conversations group is always in the answer."""
    body = view(client)
    assert body["conversations"] == []
    assert body["projects"] == []


def test_transcript_pages_upward_to_the_start(
    client: TestClient, sessions: dict[str, ClaudeSession]
) -> None:
    """RW-062/063: open by deviceId + localTaskId, then page with beforeCursor."""
    task = task_titled(view(client), "Set up")
    address = {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]}
    first = client.post("/api/runtime-work/transcript", json={**address, "limit": 50}).json()
    assert first["deviceId"] == task["deviceId"]
    assert first["task"]["localTaskId"] == task["localTaskId"]
    assert first["hasMore"] is True
    assert first["messages"][-1]["content"] == "Found the zebra."
    # CL-032: the current checklist is the latest turn's own (the first turn's older list
    # stays on its own message).
    assert first["checklist"]["items"][1] == {"content": "Write the tests", "status": "in_progress"}
    seen = [m["index"] for m in first["messages"]]
    cursor = first["beforeCursor"]
    while cursor:
        page = client.post(
            "/api/runtime-work/transcript", json={**address, "limit": 50, "beforeCursor": cursor}
        ).json()
        seen = [m["index"] for m in page["messages"]] + seen
        cursor = page.get("beforeCursor")
    assert seen == list(range(first["totalMessages"]))


def _dump(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return list(conn.iterdump())


def test_opening_a_task_never_moves_its_update_time(
    client: TestClient, sessions: dict[str, ClaudeSession], state: LocalHangar
) -> None:
    """RW-032/033/034: opening a task is read-only. The session file keeps its bytes and
    mtime, the hub's database is not written, the executor only fills its cache fields on
    the first read (never ``updatedAt``) and writes nothing on the next ones."""
    paths = state.executor.settings.paths
    before = task_titled(view(client), "Say hello")
    session = sessions["short"].path
    file_before = (session.read_bytes(), session.stat().st_mtime_ns)
    hub_before = _dump(paths.hub_db)
    address = {"deviceId": before["deviceId"], "localTaskId": before["localTaskId"]}
    row_sql = "SELECT * FROM local_tasks WHERE local_task_id = ?"

    def row() -> dict[str, Any]:
        with sqlite3.connect(paths.executor_db) as conn:
            conn.row_factory = sqlite3.Row
            return dict(conn.execute(row_sql, (before["localTaskId"],)).fetchone())

    first = row()
    client.post("/api/runtime-work/transcript", json={**address, "refresh": True})
    hydrated = row()
    cache = {"message_count", "status", "title", "model", "signature"}
    assert {k: v for k, v in hydrated.items() if k not in cache} == {
        k: v for k, v in first.items() if k not in cache
    }
    for _ in range(2):
        client.post("/api/runtime-work/transcript", json={**address, "refresh": True})
        client.post("/api/runtime-work/transcript", json=address)
    assert row() == hydrated
    assert (session.read_bytes(), session.stat().st_mtime_ns) == file_before
    assert _dump(paths.hub_db) == hub_before
    after = task_titled(view(client), "Say hello")
    assert after["updatedAt"] == before["updatedAt"]


def test_an_appended_message_shows_on_the_next_read(
    client: TestClient, sessions: dict[str, ClaudeSession]
) -> None:
    """RW-076: the next read sees what the agent appended."""
    task = task_titled(view(client), "Say hello")
    address = {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]}
    before = client.post("/api/runtime-work/transcript", json=address).json()
    sessions["short"].user("One more?").assistant("Yes, one more.")
    after = client.post("/api/runtime-work/transcript", json={**address, "refresh": True}).json()
    assert after["totalMessages"] == before["totalMessages"] + 2
    assert after["messages"][-1]["content"] == "Yes, one more."


def test_transcript_of_an_unknown_task_is_404(
    client: TestClient, sessions: dict[str, ClaudeSession]
) -> None:
    device = view(client)["devices"][0]["deviceId"]
    response = client.post(
        "/api/runtime-work/transcript", json={"deviceId": device, "localTaskId": "nope"}
    )
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_bad_paging_input_is_a_clear_4xx(
    client: TestClient, sessions: dict[str, ClaudeSession]
) -> None:
    task = task_titled(view(client), "Say hello")
    address = {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]}
    bad_cursor = client.post("/api/runtime-work/transcript", json={**address, "beforeCursor": "!!"})
    assert bad_cursor.status_code == 400
    assert (
        client.post("/api/runtime-work/transcript", json={**address, "limit": 0}).status_code == 422
    )
