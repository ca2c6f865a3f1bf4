"""Archive, unarchive, the archived list and the archive-project/all operations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hangar.errors import NotFoundError, UsageError
from hangar.executor import delete_worker
from hangar.executor.service import Executor

from .tasks import add_task


def _archive(executor: Executor, task_id: str) -> dict[str, object]:
    return executor.handle("runtime.tasks.archive", {"localTaskId": task_id})


def _listed(executor: Executor) -> list[str]:
    tasks = executor.handle("runtime.tasks.list", {})["tasks"]
    return [t["localTaskId"] for t in tasks]


def test_archived_tasks_leave_the_list_and_enter_the_archive(executor: Executor) -> None:
    """RW-160, RW-165..RW-167: the archive list is device-side, with per-Project counts and
    normalized entries; an archive by the index's override shows in both lists at once."""
    add_task(executor.db, "a", runtime="plain", workspace="/p/alpha")
    add_task(executor.db, "b", runtime="plain", workspace="/p/alpha")
    add_task(executor.db, "c", runtime="plain", workspace="/p/beta")
    assert _archive(executor, "a") == {"localTaskId": "a", "archived": True, "via": "index"}
    assert _archive(executor, "c")["archived"] is True
    assert _listed(executor) == ["b"]
    data = executor.handle("runtime.tasks.archived_list", {})
    assert data["total"] == 2
    assert [i["localTaskId"] for i in data["items"]] == ["a", "c"]
    assert data["projectGroups"] == [
        {"projectKey": "/p/alpha", "projectName": "alpha", "count": 1},
        {"projectKey": "/p/beta", "projectName": "beta", "count": 1},
    ]
    item = data["items"][0]
    assert item["source"] == "local" and item["workspacePath"] == "/p/alpha"
    fields = ("id", "localTaskId", "threadId", "title", "projectName", "createdAt", "updatedAt")
    assert [item[k] for k in fields] == [
        "a", "a", None, "a task", "alpha", "2026-11-01T09:00:00.000Z", "2026-11-01T10:00:00.000Z"
    ]  # fmt: skip
    assert item["deviceId"] and item["deviceName"]
    assert executor.handle("runtime.tasks.unarchive", {"localTaskId": "a"})["archived"] is False
    assert _listed(executor) == ["a", "b"]
    assert executor.handle("runtime.tasks.archived_list", {})["total"] == 1


def test_worktrees_of_one_project_form_one_group_and_chats_none(executor: Executor) -> None:
    """RW-168 and RW-058: grouped by the Project's main directory; chats under no Project."""
    add_task(
        executor.db,
        "w1",
        runtime="plain",
        workspace="/wt/1/repo",
        group="/p/repo",
        kind="worktree",
        archived=True,
    )
    add_task(
        executor.db,
        "w2",
        runtime="plain",
        workspace="/wt/2/repo",
        group="/p/repo",
        kind="worktree",
        archived=True,
    )
    add_task(executor.db, "m", runtime="plain", workspace="/p/repo", archived=True)
    add_task(executor.db, "chat", runtime="plain", workspace="/chats/x", kind="chat", archived=True)
    data = executor.handle("runtime.tasks.archived_list", {})
    assert data["projectGroups"] == [
        {"projectKey": "/p/repo", "projectName": "repo", "count": 3},
        {"projectKey": None, "projectName": "Conversations", "count": 1},
    ]
    only = executor.handle("runtime.tasks.archived_list", {"projectKey": "/p/repo"})
    assert {i["localTaskId"] for i in only["items"]} == {"w1", "w2", "m"}


def test_archive_project_and_archive_all_skip_running_tasks(executor: Executor) -> None:
    add_task(executor.db, "a", runtime="plain", workspace="/p/alpha")
    add_task(executor.db, "r", runtime="plain", workspace="/p/alpha", status="running")
    add_task(executor.db, "b", runtime="plain", workspace="/p/beta")
    add_task(executor.db, "chat", runtime="plain", workspace="/p/alpha", kind="chat")
    done = executor.handle("runtime.tasks.archive_project", {"projectKey": "/p/alpha"})
    assert done["archived"] == ["a"]
    assert sorted(_listed(executor)) == ["b", "chat", "r"]
    done = executor.handle("runtime.tasks.archive_all", {})
    assert sorted(done["archived"]) == ["b", "chat"]
    assert _listed(executor) == ["r"]
    with pytest.raises(UsageError):
        _archive(executor, "r")  # a running task is never archived


def test_bad_archive_requests_are_clear_errors(executor: Executor) -> None:
    with pytest.raises(NotFoundError):
        _archive(executor, "nope")
    with pytest.raises(UsageError):
        executor.handle("runtime.tasks.archive", {})
    with pytest.raises(UsageError):
        executor.handle("runtime.tasks.archive", {"localTaskId": 7})
    with pytest.raises(UsageError):
        executor.handle("runtime.tasks.archive_project", {})


def test_codex_without_the_cli_uses_the_index_flag_and_its_name_index(
    executor: Executor, isolated_home: Path
) -> None:
    """RW-163 fallback: without an app-server, Codex's own append-only name index."""
    add_task(executor.db, "cx", runtime="codex", handle={"threadId": "t-1"})
    assert _archive(executor, "cx")["via"] == "index"
    names = isolated_home / ".codex" / "session_index.jsonl"
    names.parent.mkdir(parents=True, exist_ok=True)
    names.write_text('{"id": "other", "thread_name": "x", "updated_at": "2026-01-01T00:00:00Z"}')
    reply = executor.handle("runtime.tasks.rename", {"localTaskId": "cx", "title": "Kestrel"})
    assert reply["via"] == "codex-session-index"
    lines = [json.loads(line) for line in names.read_text().splitlines()]
    assert lines[0]["id"] == "other"  # the existing (unterminated) line is kept intact
    assert (lines[1]["id"], lines[1]["thread_name"]) == ("t-1", "Kestrel")


def test_delete_rpcs_two_phase_and_progress(executor: Executor) -> None:
    """RW-173/RW-177/RW-178: delete-bulk in small batches with progress kept in the DB."""
    for n in range(3):
        add_task(executor.db, f"t{n}", runtime="plain", archived=True)
    reply = executor.handle(
        "runtime.tasks.delete_bulk", {"localTaskIds": ["t0", "t1"], "batchId": "b1"}
    )
    assert reply == {"deleted": True, "batchId": "b1", "cleanup": {"background": True}}
    assert [
        i["localTaskId"] for i in executor.handle("runtime.tasks.archived_list", {})["items"]
    ] == ["t2"]
    with pytest.raises(UsageError):
        executor.handle("runtime.tasks.delete_bulk", {"localTaskIds": [f"x{n}" for n in range(51)]})
    assert executor.deleter.wait_idle(60)
    progress = executor.handle("runtime.tasks.delete_progress", {"batchId": "b1"})
    assert (progress["total"], progress["done"]) == (2, 2)
    restored = executor.handle("runtime.tasks.restore", {"localTaskId": "t0"})
    assert restored["restored"] is True
    assert executor.handle("runtime.tasks.purge", {"localTaskId": "t1"})["purged"] is True
    with pytest.raises(NotFoundError):
        executor.handle("runtime.tasks.restore", {"localTaskId": "t1"})


def test_index_run_at_start_resumes_deletes_left_queued(
    executor: Executor, hangar_home: Path
) -> None:
    """RW-174: a queue left by a previous process is finished by the next one."""
    session = hangar_home.parent / "s.jsonl"
    session.write_text('{"x": 1}\n')
    add_task(executor.db, "q", runtime="plain", source=session)
    delete_worker.request_delete(executor.db, ["q"])  # phase one only, as if then killed
    reply = executor.handle("runtime.index.run", {})
    assert reply["pendingDeletes"] == 1
    assert executor.deleter.wait_idle(60)
    assert not session.exists()
    assert (hangar_home / "trash" / "q" / "manifest.json").exists()
    assert executor.handle("runtime.index.status", {})["running"] is False
