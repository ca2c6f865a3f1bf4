"""cleanup-preview and cleanup: only archived, submitted items, only inside managed roots."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from hangar.errors import UsageError
from hangar.executor import trash
from hangar.executor.service import Executor

from .tasks import add_task


def _targets(result: dict[str, Any], task_id: str) -> dict[str, dict[str, Any]]:
    (item,) = [i for i in result["items"] if i["localTaskId"] == task_id]
    return {t["kind"]: t for t in item.get("targets", [])} | {"_item": item}


def _chat(home: Path, task_id: str) -> Path:
    folder = home / "chats" / f"chat-{task_id}"
    (folder / "notes").mkdir(parents=True)
    (folder / "notes" / "a.md").write_text("draft notes\n")
    (folder / "b.bin").write_bytes(b"\x00" * 1000)
    return folder


def test_preview_lists_kind_path_exists_bytes_and_cleanup_moves_to_trash(
    executor: Executor, hangar_home: Path
) -> None:
    """RW-179/RW-180/RW-182: targets derive from the item; files go to the (restorable) trash."""
    folder = _chat(hangar_home, "c1")
    log = hangar_home / "logs" / "tasks" / "c1"
    log.parent.mkdir(parents=True)
    log.write_text("log line\n")
    add_task(executor.db, "c1", runtime="plain", workspace=str(folder), kind="chat", archived=True)
    preview = executor.handle("runtime.tasks.cleanup_preview", {"localTaskIds": ["c1"]})
    targets = _targets(preview, "c1")
    assert targets["chat_workspace"] == {
        "kind": "chat_workspace",
        "path": str(folder),
        "exists": True,
        "bytes": 1012,
        "status": "will_delete",
    }
    assert targets["session_log"]["bytes"] == 9 and targets["session_log"]["exists"]
    assert targets["attachments"] == {
        "kind": "attachments",
        "path": str(hangar_home / "attachments" / "c1"),
        "exists": False,
        "bytes": 0,
        "status": "absent",
    }
    assert preview["bytes"] == 1021 and folder.exists()  # preview changes nothing
    digest = hashlib.sha256((folder / "notes" / "a.md").read_bytes()).hexdigest()
    done = executor.handle("runtime.tasks.cleanup", {"localTaskIds": ["c1"]})
    assert done["counts"]["deleted"] == 2
    assert not folder.exists() and not log.exists()
    trash_id = _targets(done, "c1")["_item"]["trashId"]
    trash.restore(hangar_home / "trash", trash_id)
    assert hashlib.sha256((folder / "notes" / "a.md").read_bytes()).hexdigest() == digest


def test_symlinks_and_paths_outside_the_managed_roots_are_refused(
    executor: Executor, hangar_home: Path, tmp_path: Path
) -> None:
    """RW-181/RW-182: a path-safety check; real symlinks never lead cleanup outside."""
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep me\n")
    chats = hangar_home / "chats"
    chats.mkdir(parents=True)
    linked = chats / "chat-s1"
    linked.symlink_to(outside)  # a chat dir that is a symlink to somewhere else
    drafts = hangar_home / "attachments" / "draft"
    drafts.mkdir(parents=True)
    (drafts / "escape").symlink_to(outside)  # a symlinked directory inside the drafts root
    inner = _chat(hangar_home, "s2")
    (inner / "link-out").symlink_to(outside)  # a symlink inside an otherwise fine directory
    handle = {
        "cleanupAttachments": [
            {"localPath": str(outside / "keep.txt")},
            {"localPath": str(drafts / "escape" / "keep.txt")},
            {"localPath": str(drafts / ".." / ".." / "executor.db")},
            {"localPath": "relative/path.png"},
        ]
    }
    add_task(
        executor.db,
        "s1",
        runtime="plain",
        workspace=str(linked),
        kind="chat",
        archived=True,
        handle=handle,
    )
    add_task(executor.db, "s2", runtime="plain", workspace=str(inner), kind="chat", archived=True)
    preview = executor.handle("runtime.tasks.cleanup_preview", {"localTaskIds": ["s1", "s2"]})
    (item,) = [i for i in preview["items"] if i["localTaskId"] == "s1"]
    reasons = {t["path"]: (t["status"], t.get("reason")) for t in item["targets"]}
    assert reasons[str(linked)] == ("refused", "path is or passes through a symlink")
    assert reasons[str(outside / "keep.txt")] == ("refused", "outside the managed directories")
    assert reasons[str(drafts / "escape" / "keep.txt")][0] == "refused"
    assert reasons[str(drafts / ".." / ".." / "executor.db")][0] == "refused"
    assert reasons["relative/path.png"][0] == "refused"
    inner_target = _targets(preview, "s2")["chat_workspace"]
    assert (inner_target["status"], inner_target["reason"]) == (
        "refused",
        "directory contains symlinks",
    )
    executor.handle("runtime.tasks.cleanup", {"localTaskIds": ["s1", "s2"]})
    assert (outside / "keep.txt").read_text() == "keep me\n"
    assert linked.is_symlink() and (inner / "notes" / "a.md").exists()
    assert (hangar_home / "executor.db").exists()


def test_only_archived_submitted_idle_items_are_cleaned(
    executor: Executor, hangar_home: Path
) -> None:
    """RW-183: unarchived, running and unsubmitted items and Project roots stay."""
    folders = {name: _chat(hangar_home, name) for name in ("live", "run", "other", "ok")}
    add_task(executor.db, "live", runtime="plain", workspace=str(folders["live"]), kind="chat")
    add_task(
        executor.db,
        "run",
        runtime="plain",
        workspace=str(folders["run"]),
        kind="chat",
        archived=True,
        status="running",
    )
    add_task(
        executor.db,
        "other",
        runtime="plain",
        workspace=str(folders["other"]),
        kind="chat",
        archived=True,
    )
    add_task(
        executor.db, "ok", runtime="plain", workspace=str(folders["ok"]), kind="chat", archived=True
    )
    # Another task uses the "ok" chat folder as its Project root: never cleaned.
    add_task(executor.db, "proj", runtime="plain", workspace=str(folders["ok"]))
    done = executor.handle("runtime.tasks.cleanup", {"localTaskIds": ["live", "run", "ok"]})
    status = {i["localTaskId"]: (i["status"], i.get("reason")) for i in done["items"]}
    assert status["live"] == ("refused", "task is not archived")
    assert status["run"] == ("refused", "task is running")
    assert _targets(done, "ok")["chat_workspace"]["reason"] == "a Project root is never cleaned"
    assert all(folder.exists() for folder in folders.values())
    for bad in ({}, {"localTaskIds": []}, {"localTaskIds": [1]}, {"localTaskIds": "ok"}):
        with pytest.raises(UsageError):
            executor.handle("runtime.tasks.cleanup_preview", bad)


def test_worktrees_are_listed_but_left_to_the_snapshotting_worktree_delete(
    executor: Executor, hangar_home: Path
) -> None:
    tree = hangar_home / "worktrees" / "w1" / "repo"
    tree.mkdir(parents=True)
    (tree / "file.txt").write_text("uncommitted\n")
    add_task(
        executor.db,
        "w",
        runtime="plain",
        workspace=str(tree),
        group="/p/repo",
        kind="worktree",
        archived=True,
    )
    done = executor.handle("runtime.tasks.cleanup", {"localTaskIds": ["w"]})
    assert _targets(done, "w")["worktree"]["status"] == "skipped"
    assert (tree / "file.txt").read_text() == "uncommitted\n"
