"""delete archives and snapshots before removing; restore brings the directory back."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from hangar.errors import HangarError
from hangar.executor.service import Executor
from hangar.executor.worktrees import WorktreeService

from .conftest import ClaudeSession, git, tree_state, workspace_fingerprint


def _task_states(executor: Executor, path: Path) -> dict[str, tuple[bool, str]]:
    return {t.local_task_id: (t.archived, t.status) for t in executor.index.in_directory(str(path))}


def test_delete_archives_the_linked_tasks_and_unarchive_restores_the_worktree(
    executor: Executor, store: WorktreeService, repo: Path, claude_session: ClaudeSession
) -> None:
    """RW-198, RW-199, RW-188: the list shows the worktree's tasks; delete archives them,
    then snapshots and removes; unarchiving a task brings the worktree back."""
    wt = Path(store.prepare(str(repo), "linked")["path"])
    claude_session(wt)
    claude_session(wt / "src")  # a task that ran in a folder of the worktree
    claude_session(repo)  # the main workspace's own task is not linked
    (wt / "work.txt").write_text("in progress\n")
    (group,) = executor.handle("runtime.worktrees.list", {})["repositories"]
    (listed,) = group["worktrees"]
    assert len(listed["tasks"]) == 2 and all(not t["archived"] for t in listed["tasks"])

    gone = executor.handle("runtime.worktrees.delete", {"worktreeId": "linked"})
    assert sorted(gone["archivedTaskIds"]) == sorted(t["localTaskId"] for t in listed["tasks"])
    assert all(archived for archived, _ in _task_states(executor, wt).values())
    assert not wt.exists()
    main_tasks = [t for t in executor.list_tasks() if t.workspace_path == str(repo)]
    assert len(main_tasks) == 1 and not main_tasks[0].archived

    task_id = gone["archivedTaskIds"][0]
    done = executor.handle("runtime.tasks.unarchive", {"localTaskId": task_id})
    assert done["archived"] is False and done["worktree"]["restored"] is True
    assert (wt / "work.txt").read_text() == "in progress\n"
    again = executor.handle("runtime.tasks.unarchive", {"localTaskId": gone["archivedTaskIds"][1]})
    assert "worktree" not in again  # already present: nothing to restore


def test_a_running_task_blocks_delete_even_before_anything_read_it(
    executor: Executor, store: WorktreeService, repo: Path, claude_session: ClaudeSession
) -> None:
    wt = Path(store.prepare(str(repo), "busy-task")["path"])
    session = claude_session(wt, running=True)
    task_id = executor.resolve_task(session)  # listed, not read yet: its status is not known
    before = tree_state(wt)
    with pytest.raises(HangarError) as caught:
        executor.handle("runtime.worktrees.delete", {"worktreeId": "busy-task"})
    assert caught.value.code == "worktree_in_use"
    assert caught.value.details()["localTaskIds"] == [task_id]
    assert tree_state(wt) == before and not executor.index.get(task_id).archived
    assert executor.index.get(task_id).status == "running"


def _fifo(wt: Path) -> None:
    (wt / "doomed.txt").unlink()
    os.mkfifo(wt / "doomed.txt")  # a tracked file replaced by a FIFO: no bytes to keep


def _submodule(wt: Path) -> None:
    sub = wt.parent.parent / "sub-src"
    sub.mkdir()
    git("init", "-q", cwd=sub)
    (sub / "s.txt").write_text("sub\n")
    git("add", ".", cwd=sub)
    git("commit", "-q", "-m", "s", cwd=sub)
    git("submodule", "add", "-q", str(sub), "libs/sub", cwd=wt)


def _nested(wt: Path) -> None:
    nested = wt / "vendor" / "thing"
    nested.mkdir(parents=True)
    git("init", "-q", cwd=nested)
    (nested / "x.txt").write_text("nested repo file\n")


def _conflict(wt: Path) -> None:
    git("switch", "-q", "-c", "side", cwd=wt)
    (wt / "README.md").write_text("side\n")
    git("commit", "-q", "-am", "side", cwd=wt)
    git("switch", "-q", "--detach", "develop", cwd=wt)
    (wt / "README.md").write_text("other\n")
    git("commit", "-q", "-am", "other", cwd=wt)
    git("merge", "-q", "side", cwd=wt, check=False)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (_fifo, "special file"),
        (_submodule, "initialized submodule at libs/sub"),
        (_nested, "nested git repository at vendor/thing"),
        (_conflict, "unresolved merge conflict in README.md"),
    ],
)
def test_a_failed_snapshot_keeps_the_directory(
    executor: Executor, store: WorktreeService, repo: Path, make: object, words: str
) -> None:
    """RW-187 / bad input: whatever prevents a faithful snapshot leaves the worktree exactly as
    it was, writes no snapshot ref and answers an error that says why."""
    wt = Path(store.prepare(str(repo), "keep")["path"])
    (wt / "precious.txt").write_text("uncommitted work\n")
    make(wt)  # type: ignore[operator]
    before = tree_state(wt)
    status = git("status", "--porcelain=v1", cwd=wt)
    with pytest.raises(HangarError) as caught:
        executor.handle("runtime.worktrees.delete", {"worktreeId": "keep"})
    assert caught.value.code == "worktree_snapshot_failed"
    assert words in str(caught.value) and "kept unchanged" in str(caught.value)
    assert tree_state(wt) == before and git("status", "--porcelain=v1", cwd=wt) == status
    assert git("show-ref", "refs/hangar/worktree-snapshots/keep", cwd=repo, check=False) == ""
    assert store.record("keep").state == "active"


def test_a_worktree_that_lost_its_git_link_is_not_snapshotted_as_another_repository(
    executor: Executor, store: WorktreeService, repo: Path, tmp_path: Path
) -> None:
    """RW-187: with its ``.git`` file gone, git would find an enclosing repository (here the
    root sits inside one); hangar refuses and keeps the directory."""
    outer = tmp_path / "dotfiles"
    outer.mkdir()
    git("init", "-q", cwd=outer)
    store.update_settings(root=str(outer / "trees"))
    wt = Path(store.prepare(str(repo), "orphan")["path"])
    (wt / ".git").unlink()
    before = tree_state(wt)
    with pytest.raises(HangarError) as caught:
        store.delete("orphan")
    assert caught.value.code == "worktree_snapshot_failed"
    assert "no longer a git worktree" in str(caught.value) and tree_state(wt) == before
    assert git("for-each-ref", cwd=outer) == ""


def test_an_uninitialized_submodule_is_kept_as_a_gitlink(
    executor: Executor, store: WorktreeService, repo: Path, tmp_path: Path
) -> None:
    """Bad input (submodules): a repository with a submodule prepares, snapshots and restores;
    the submodule stays uninitialized (an empty folder at the recorded commit)."""
    sub = tmp_path / "sub-src"
    sub.mkdir()
    git("init", "-q", cwd=sub)
    (sub / "s.txt").write_text("sub\n")
    git("add", ".", cwd=sub)
    git("commit", "-q", "-m", "s", cwd=sub)
    git("submodule", "add", "-q", str(sub), "libs/sub", cwd=repo)
    git("commit", "-q", "-m", "add submodule", cwd=repo)
    wt = Path(store.prepare(str(repo), "with-sub")["path"])
    assert (wt / "libs" / "sub").is_dir() and not any((wt / "libs" / "sub").iterdir())
    (wt / "edit.txt").write_text("beside a submodule\n")
    before = git("ls-files", "-s", "libs/sub", cwd=wt)
    store.delete("with-sub")
    store.restore("with-sub")
    assert git("ls-files", "-s", "libs/sub", cwd=wt) == before
    assert (wt / "libs" / "sub").is_dir() and (wt / "edit.txt").exists()


def test_lfs_pointer_files_are_kept_byte_for_byte(
    executor: Executor, store: WorktreeService, repo: Path
) -> None:
    """Bad input (LFS): pointer files committed under ``filter=lfs`` (no git-lfs here) and an
    edited pointer come back exactly; no filter runs on the snapshot's way."""
    pointer = (
        b"version https://git-lfs.github.com/spec/v1\n"
        b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
        b"size 12345\n"
    )
    (repo / ".gitattributes").write_text("*.psd filter=lfs diff=lfs merge=lfs -text\n")
    (repo / "art.psd").write_bytes(pointer)
    git("add", ".", cwd=repo)
    git("commit", "-q", "-m", "lfs pointer", cwd=repo)
    wt = Path(store.prepare(str(repo), "lfs")["path"])
    assert (wt / "art.psd").read_bytes() == pointer
    (wt / "new.psd").write_bytes(b"\x89PNG raw content that a filter would rewrite\x00")
    before = tree_state(wt)
    store.delete("lfs")
    store.restore("lfs")
    assert tree_state(wt) == before


def test_a_required_filter_that_cannot_run_fails_prepare_cleanly(
    executor: Executor, hangar_home: Path, store: WorktreeService, repo: Path
) -> None:
    """Bad input (LFS): a repository that requires ``git-lfs`` where it is not installed:
    prepare says so, and leaves no directory and no registered worktree behind."""
    (repo / ".gitattributes").write_text("*.psd filter=lfs -text\n")
    (repo / "art.psd").write_bytes(b"pointer\n")
    git("add", ".", cwd=repo)
    git("commit", "-q", "-m", "lfs", cwd=repo)
    git("config", "filter.lfs.smudge", "git-lfs-not-installed smudge -- %f", cwd=repo)
    git("config", "filter.lfs.required", "true", cwd=repo)
    before = workspace_fingerprint(repo, status=False)  # status itself would need git-lfs
    with pytest.raises(HangarError) as caught:
        store.prepare(str(repo), "needs-lfs")
    assert caught.value.code == "worktree_source_not_git"
    assert "could not create the worktree from develop" in str(caught.value)
    assert not (hangar_home / "worktrees" / "needs-lfs").exists()
    assert git("worktree", "list", "--porcelain", cwd=repo).count("worktree ") == 1
    assert workspace_fingerprint(repo, status=False) == before
    with pytest.raises(HangarError) as missing:
        store.record("needs-lfs")
    assert missing.value.code == "not_found"


_HOLD = """
import sys, time
from pathlib import Path
from hangar.executor.worktrees.lease import hold_lease
with hold_lease(Path(sys.argv[1]), sys.argv[2], "agent run"):
    print("held", flush=True)
    time.sleep(600)
"""


def test_the_execution_lease_stops_a_second_writer(
    executor: Executor, store: WorktreeService, repo: Path
) -> None:
    """Two writers on one worktree: while another process holds the lease, delete is refused
    (naming the holder); when that process dies the lease is free without any cleanup."""
    wt = Path(store.prepare(str(repo), "leased")["path"])
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(store.leases), "leased"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(HangarError) as caught:
            store.delete("leased")
        assert caught.value.code == "worktree_busy"
        assert f"pid {holder.pid}, agent run" in str(caught.value)
        with pytest.raises(HangarError):
            store.restore("leased")
        assert wt.is_dir()
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
        assert holder.stdout is not None
        holder.stdout.close()
    with store.lease("leased", "test"):
        with pytest.raises(HangarError) as nested:
            store.delete("leased")  # the same process, another writer: still excluded
        assert nested.value.code == "worktree_busy"
    assert store.delete("leased")["deleted"] is True


def test_restore_never_overwrites_what_is_now_at_the_path(
    executor: Executor, store: WorktreeService, repo: Path
) -> None:
    wt = Path(store.prepare(str(repo), "squat")["path"])
    store.delete("squat")
    wt.mkdir(parents=True)
    (wt / "someone-else.txt").write_text("not from the snapshot\n")
    with pytest.raises(HangarError) as caught:
        store.restore("squat")
    assert caught.value.code == "worktree_target_conflict"
    assert (wt / "someone-else.txt").read_text() == "not from the snapshot\n"


def test_a_tampered_record_never_reaches_the_main_workspace(
    executor: Executor, hangar_home: Path, store: WorktreeService, repo: Path
) -> None:
    """Path traversal / RW-189: a record whose path was edited to point at the project (or
    through ``..``) is refused before git or the filesystem sees it."""
    store.prepare(str(repo), "tamper")
    file = hangar_home / "runtime-work" / "worktrees.json"
    before = workspace_fingerprint(repo)
    for bad in (str(repo), str(hangar_home / "worktrees" / "tamper" / ".." / "demo")):
        data = json.loads(file.read_text())
        data["worktrees"]["tamper"]["path"] = bad
        file.write_text(json.dumps(data))
        with pytest.raises(HangarError) as caught:
            store.delete("tamper")
        assert caught.value.code == "unsafe_path"
    assert workspace_fingerprint(repo) == before


def test_a_symlink_swapped_into_the_path_is_not_followed(
    executor: Executor, hangar_home: Path, store: WorktreeService, repo: Path, tmp_path: Path
) -> None:
    """Symlinks: a worktree folder replaced by a link elsewhere is refused, not followed."""
    wt = Path(store.prepare(str(repo), "linked-away")["path"])
    elsewhere = tmp_path / "elsewhere"
    wt.parent.rename(elsewhere)
    wt.parent.symlink_to(elsewhere)
    with pytest.raises(HangarError) as caught:
        store.delete("linked-away")
    assert caught.value.code == "unsafe_path" and "symlink" in str(caught.value)
    assert (elsewhere / "demo" / "README.md").exists()


def test_a_worktree_removed_behind_hangars_back_is_listed_as_missing(
    executor: Executor, store: WorktreeService, repo: Path
) -> None:
    wt = Path(store.prepare(str(repo), "vanished")["path"])
    git("worktree", "remove", "--force", str(wt), cwd=repo)
    (listed,) = store.list_worktrees()["repositories"][0]["worktrees"]
    assert listed["state"] == "missing"
    with pytest.raises(HangarError) as caught:
        store.restore("vanished")
    assert caught.value.code == "worktree_restore_failed" and "no snapshot" in str(caught.value)
