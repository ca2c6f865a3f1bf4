"""Delete → restore brings back every uncommitted change, byte for byte and mode for mode."""

from __future__ import annotations

import os
from pathlib import Path

from hangar.executor.service import Executor
from hangar.executor.worktrees import WorktreeService

from .conftest import git, tree_state, workspace_fingerprint


def _make_every_kind_of_change(wt: Path) -> None:
    (wt / "src" / "app.py").write_text("print('edited, not staged')\n")  # tracked edit
    (wt / "staged.txt").write_text("staged only\n")
    git("add", "staged.txt", cwd=wt)  # staged new file
    (wt / "README.md").write_text("# staged version\n")
    git("add", "README.md", cwd=wt)
    (wt / "README.md").write_text("# staged version\nplus an unstaged line\n")  # on top
    (wt / "notes.md").write_text("untracked\n")  # untracked, not ignored
    (wt / "debug.log").write_text("ignored\n")  # ignored: left out on purpose
    (wt / "build").mkdir()
    (wt / "build" / "out.bin").write_bytes(b"ignored build output")
    (wt / "image.bin").write_bytes(bytes(range(256)) * 64 + b"\x00\xff\r\n")  # binary
    (wt / "tool.sh").chmod(0o755)  # executable bit on a tracked file
    (wt / "private.key").write_text("secret\n")
    (wt / "private.key").chmod(0o600)  # an unusual mode
    git("mv", "old_name.txt", "new_name.txt", cwd=wt)  # rename (staged)
    (wt / "doomed.txt").unlink()  # deletion, not staged
    git("rm", "-q", "staged_doomed.txt", cwd=wt)  # deletion, staged
    (wt / "windows.txt").write_bytes(b"line one\r\nline two\r\n")  # CRLF kept as bytes
    (wt / ".gitattributes").write_text("*.txt text=auto eol=lf\n")  # must not rewrite them
    (wt / "link-to-app").symlink_to("src/app.py")
    (wt / "dangling").symlink_to("../nowhere/./x")
    (wt / "deep" / "er").mkdir(parents=True)
    (wt / "deep" / "er" / "file name with spaces ü.txt").write_text("unicode\n")


def test_every_kind_of_uncommitted_change_survives_delete_and_restore(
    executor: Executor, store: WorktreeService, repo: Path
) -> None:
    """RW-185, RW-186, RW-188: tracked, staged, staged+unstaged, untracked, binary, executable
    bit, rename and deletions come back byte for byte and mode for mode; ignored files are
    not in the snapshot and are reported; the index (what was staged) comes back too."""
    main_before = workspace_fingerprint(repo)
    wt = Path(store.prepare(str(repo), "wt-every")["path"])
    _make_every_kind_of_change(wt)
    before = tree_state(wt)
    status_before = git("status", "--porcelain=v1", "-uall", cwd=wt)
    staged_before = git("diff", "--cached", "--binary", cwd=wt)
    unstaged_before = git("diff", "--binary", cwd=wt)

    gone = executor.handle("runtime.worktrees.delete", {"worktreeId": "wt-every"})
    assert gone["deleted"] is True and not wt.exists() and not wt.parent.exists()
    snap = gone["worktree"]["snapshot"]
    assert snap["ref"] == "refs/hangar/worktree-snapshots/wt-every"
    assert git("rev-parse", snap["ref"], cwd=repo) == snap["commit"]
    assert sorted(snap["ignored"]) == ["build/", "debug.log"]
    assert gone["worktree"]["state"] == "snapshot"

    back = executor.handle("runtime.worktrees.restore", {"worktreeId": "wt-every"})
    assert back["restored"] is True and back["worktree"]["state"] == "active"
    after = tree_state(wt)
    expected = {k: v for k, v in before.items() if not k.startswith(("build/", "debug.log"))}
    assert after == expected
    assert git("status", "--porcelain=v1", "-uall", cwd=wt) == status_before
    assert git("diff", "--cached", "--binary", cwd=wt) == staged_before
    assert git("diff", "--binary", cwd=wt) == unstaged_before
    assert (wt / "windows.txt").read_bytes() == b"line one\r\nline two\r\n"
    assert os.readlink(wt / "dangling") == "../nowhere/./x"  # noqa: PTH115 (exact target)
    assert workspace_fingerprint(repo) == main_before  # RW-189


def test_commits_made_in_the_worktree_and_its_branch_come_back(
    executor: Executor, store: WorktreeService, repo: Path
) -> None:
    """RW-185: the snapshot's first parent is the worktree's HEAD, so commits made there stay
    reachable; HEAD is put back on its branch when that branch is still free."""
    wt = Path(store.prepare(str(repo), "wt-commits")["path"])
    git("switch", "-q", "-c", "feature/x", cwd=wt)
    (wt / "feature.txt").write_text("committed in the worktree\n")
    git("add", "feature.txt", cwd=wt)
    git("commit", "-q", "-m", "feature work", cwd=wt)
    (wt / "wip.txt").write_text("not committed\n")
    head = git("rev-parse", "HEAD", cwd=wt)

    executor.handle("runtime.worktrees.delete", {"worktreeId": "wt-commits"})
    back = executor.handle("runtime.worktrees.restore", {"path": str(wt)})
    assert back["headRef"] == "refs/heads/feature/x"
    assert git("symbolic-ref", "HEAD", cwd=wt) == "refs/heads/feature/x"
    assert git("rev-parse", "HEAD", cwd=wt) == head
    assert (wt / "wip.txt").read_text() == "not committed\n"


def test_a_second_delete_after_restore_snapshots_again_and_keeps_history(
    executor: Executor, store: WorktreeService, repo: Path
) -> None:
    """RW-185: each removal writes a fresh snapshot; the ref's reflog keeps the earlier one."""
    wt = Path(store.prepare(str(repo), "wt-twice")["path"])
    (wt / "one.txt").write_text("first round\n")
    first = executor.handle("runtime.worktrees.delete", {"worktreeId": "wt-twice"})
    executor.handle("runtime.worktrees.restore", {"worktreeId": "wt-twice"})
    (wt / "two.txt").write_text("second round\n")
    second = executor.handle("runtime.worktrees.delete", {"worktreeId": "wt-twice"})
    assert first["worktree"]["snapshot"]["commit"] != second["worktree"]["snapshot"]["commit"]
    log = git("reflog", "show", "--format=%H", "refs/hangar/worktree-snapshots/wt-twice", cwd=repo)
    assert log.splitlines()[:2] == [
        second["worktree"]["snapshot"]["commit"],
        first["worktree"]["snapshot"]["commit"],
    ]
    executor.handle("runtime.worktrees.restore", {"worktreeId": "wt-twice"})
    assert (wt / "one.txt").read_text() == "first round\n"
    assert (wt / "two.txt").read_text() == "second round\n"
