"""Cleanup of archived tasks removes their managed worktree through the snapshot path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hangar.executor.service import Executor
from hangar.executor.worktrees import WorktreeService

from .conftest import ClaudeSession, git, tree_state


def _worktree_target(result: dict[str, Any], task_id: str) -> dict[str, Any]:
    (item,) = [i for i in result["items"] if i["localTaskId"] == task_id]
    (target,) = [t for t in item["targets"] if t["kind"] == "worktree"]
    return target


def test_cleanup_snapshots_then_removes_an_archived_tasks_worktree(
    executor: Executor, store: WorktreeService, repo: Path, claude_session: ClaudeSession
) -> None:
    """RW-179, RW-186: cleanup of an archived task removes its managed worktree only after
    the snapshot ref is written; the worktree can be restored afterwards."""
    wt = Path(store.prepare(str(repo), "done-task")["path"])
    (wt / "result.txt").write_text("the agent's output\n")
    task = executor.resolve_task(claude_session(wt))
    executor.handle("runtime.tasks.archive", {"localTaskId": task})
    before = tree_state(wt)
    preview = executor.handle("runtime.tasks.cleanup_preview", {"localTaskIds": [task]})
    target = _worktree_target(preview, task)
    assert target["status"] == "will_delete" and target["snapshot"] is True
    assert target["path"] == str(wt) and target["bytes"] > 0 and wt.exists()

    done = executor.handle("runtime.tasks.cleanup", {"localTaskIds": [task]})
    target = _worktree_target(done, task)
    assert target["status"] == "deleted" and not wt.exists()
    ref = target["snapshot"]["ref"]
    assert git("rev-parse", ref, cwd=repo) == target["snapshot"]["commit"]
    store.restore("done-task")
    assert tree_state(wt) == before


def test_cleanup_refuses_a_worktree_still_in_use_or_permanent(
    executor: Executor, store: WorktreeService, repo: Path, claude_session: ClaudeSession
) -> None:
    """RW-183: a worktree another unarchived task still uses, and a permanent one,
    are refused item by item and stay on disk."""
    shared = Path(store.prepare(str(repo), "shared")["path"])
    archived = executor.resolve_task(claude_session(shared))
    claude_session(shared / "src")  # still open
    executor.handle("runtime.tasks.archive", {"localTaskId": archived})
    permanent = Path(store.prepare(str(repo), "forever", permanent=True)["path"])
    kept = executor.resolve_task(claude_session(permanent))
    executor.handle("runtime.tasks.archive", {"localTaskId": kept})

    done = executor.handle("runtime.tasks.cleanup", {"localTaskIds": [archived, kept]})
    first, second = _worktree_target(done, archived), _worktree_target(done, kept)
    assert first["status"] == "refused" and "is not archived" in first["reason"]
    assert second["status"] == "refused" and "permanent" in second["reason"]
    assert shared.is_dir() and permanent.is_dir()


def test_a_worktree_hangar_does_not_manage_is_never_cleaned(
    executor: Executor, repo: Path, tmp_path: Path, claude_session: ClaudeSession
) -> None:
    """RW-182: a git worktree the user made is listed as skipped, never touched."""
    theirs = tmp_path / "their-worktrees" / "fix"
    git("worktree", "add", "-q", "--detach", str(theirs), cwd=repo)
    (theirs / "wip.txt").write_text("the user's own work\n")
    task = executor.resolve_task(claude_session(theirs))
    executor.handle("runtime.tasks.archive", {"localTaskId": task})
    done = executor.handle("runtime.tasks.cleanup", {"localTaskIds": [task]})
    target = _worktree_target(done, task)
    assert target["status"] == "skipped" and "not a worktree hangar manages" in target["reason"]
    assert (theirs / "wip.txt").read_text() == "the user's own work\n"
