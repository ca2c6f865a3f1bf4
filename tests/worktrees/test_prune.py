"""Automatic cleanup: the policy as a table, then the real thing after prepare and settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from hangar.executor.service import Executor
from hangar.executor.worktrees import WorktreeService
from hangar.executor.worktrees.policy import PruneFacts, TaskFacts, decide

from .conftest import ClaudeSession

ARCHIVED = TaskFacts(archived=True, running=False, updated_at="2026-05-01T00:00:00Z")
OPEN = TaskFacts(archived=False, running=False, updated_at="2026-05-01T00:00:00Z")
RUNNING = TaskFacts(archived=False, running=True, updated_at="2026-05-01T00:00:00Z")
ARCHIVED_RUNNING = TaskFacts(archived=True, running=True, updated_at="2026-05-01T00:00:00Z")


def _wt(
    wid: str,
    day: int,
    *tasks: TaskFacts,
    permanent: bool = False,
    present: bool = True,
) -> PruneFacts:
    return PruneFacts(wid, present, permanent, f"2026-06-{day:02d}T00:00:00.000Z", tasks)


TABLE = [
    # (worktrees, keep, expected decisions)
    ([_wt("a", 1, ARCHIVED)], 0, {"a": "remove"}),
    ([_wt("a", 1, ARCHIVED)], 1, {"a": "keep:within_keep_count"}),
    ([_wt("old", 1, ARCHIVED), _wt("new", 9, ARCHIVED), _wt("mid", 5, ARCHIVED)], 1,
     {"new": "keep:within_keep_count", "mid": "remove", "old": "remove"}),
    ([_wt("a", 1, ARCHIVED, OPEN)], 0, {"a": "keep:unarchived_task"}),
    ([_wt("a", 1, ARCHIVED, RUNNING)], 0, {"a": "keep:running_task"}),
    ([_wt("a", 1, ARCHIVED_RUNNING)], 0, {"a": "keep:running_task"}),
    ([_wt("a", 1)], 0, {"a": "keep:no_task_record"}),
    ([_wt("a", 1, ARCHIVED, permanent=True)], 0, {"a": "keep:permanent"}),
    ([_wt("a", 1, ARCHIVED, present=False)], 0, {"a": "keep:not_present"}),
    # Ineligible worktrees do not use up the keep count; only candidates are ranked.
    ([_wt("perm", 9, ARCHIVED, permanent=True), _wt("open", 8, OPEN),
      _wt("x", 2, ARCHIVED), _wt("y", 3, ARCHIVED)], 1,
     {"perm": "keep:permanent", "open": "keep:unarchived_task",
      "y": "keep:within_keep_count", "x": "remove"}),
    # A task's later activity counts as use of its worktree.
    ([_wt("a", 1, TaskFacts(True, False, "2026-07-01T00:00:00Z")), _wt("b", 5, ARCHIVED)], 1,
     {"a": "keep:within_keep_count", "b": "remove"}),
]  # fmt: skip


@pytest.mark.parametrize(("worktrees", "keep", "expected"), TABLE)
def test_prune_policy(worktrees: list[PruneFacts], keep: int, expected: dict[str, str]) -> None:
    """RW-201, RW-202, RW-208: LRU beyond the keep count, only worktrees whose tasks are all
    archived, never permanent, never with a running task, never without a task record."""
    assert decide(worktrees, keep) == expected


def _archived_task_in(
    executor: Executor, store: WorktreeService, repo: Path, wid: str, session: ClaudeSession
) -> Path:
    wt = Path(store.prepare(str(repo), wid)["path"])
    task = executor.resolve_task(session(wt, when="2026-05-01T00:00:00Z"))
    executor.handle("runtime.tasks.archive", {"localTaskId": task})
    return wt


def test_prune_runs_after_prepare_and_after_a_settings_change(
    executor: Executor, store: WorktreeService, repo: Path, claude_session: ClaudeSession
) -> None:
    """RW-193, RW-200: keep 15 by default; lowering the keep count prunes at once, the next
    prepare prunes again; removed worktrees keep their snapshot and the permanent one and the
    one without a task stay."""
    assert store.settings()["keepCount"] == 15 and store.settings()["autoCleanup"] is True
    first = _archived_task_in(executor, store, repo, "w-1", claude_session)
    second = _archived_task_in(executor, store, repo, "w-2", claude_session)
    store.prepare(str(repo), "no-task")
    perm = Path(store.prepare(str(repo), "perm", permanent=True)["path"])
    executor.handle(
        "runtime.tasks.archive", {"localTaskId": executor.resolve_task(claude_session(perm))}
    )
    (first / "left-behind.txt").write_text("kept in the snapshot\n")

    changed = executor.handle("runtime.worktrees.settings.update", {"keepCount": 1})
    assert changed["pruned"]["removed"] == ["w-1"]  # least recently used
    assert not first.exists() and second.exists()
    assert store.record("w-1").state == "snapshot"

    third = _archived_task_in(executor, store, repo, "w-3", claude_session)
    assert second.exists()  # w-3 had no archived task yet when it was prepared
    pruned = executor.handle(
        "runtime.worktrees.prepare", {"sourcePath": str(repo), "worktreeId": "w-4"}
    )["pruned"]
    assert pruned["removed"] == ["w-2"] and not second.exists() and third.exists()
    decisions = executor.handle("runtime.worktrees.prune", {})["decisions"]
    assert decisions["no-task"] == "keep:no_task_record"
    assert decisions["perm"] == "keep:permanent"
    store.restore("w-1")
    assert (first / "left-behind.txt").read_text() == "kept in the snapshot\n"


def test_auto_cleanup_off_stops_automatic_runs_but_not_an_explicit_prune(
    executor: Executor, store: WorktreeService, repo: Path, claude_session: ClaudeSession
) -> None:
    store.update_settings(auto_cleanup=False, keep_count=0)
    wt = _archived_task_in(executor, store, repo, "idle", claude_session)
    assert store.prepare(str(repo), "other")["pruned"]["skipped"] == "autoCleanup is off"
    assert wt.exists()
    assert executor.handle("runtime.worktrees.prune", {})["removed"] == ["idle"]
    assert not wt.exists()


def test_prune_skips_a_worktree_whose_lease_is_held(
    executor: Executor, store: WorktreeService, repo: Path, claude_session: ClaudeSession
) -> None:
    wt = _archived_task_in(executor, store, repo, "in-use", claude_session)
    store.update_settings(auto_cleanup=False, keep_count=0)
    with store.lease("in-use", "agent run"):
        result = store.prune()
    assert result["removed"] == [] and result["decisions"]["in-use"] == "keep:busy"
    assert wt.exists()
