"""Worktree settings: device-level, in the executor's own home, validated."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hangar.errors import HangarError
from hangar.executor.service import Executor
from hangar.executor.worktrees import WorktreeService
from hangar.paths import hangar_paths

from .conftest import tree_state, workspace_fingerprint


def test_defaults_live_in_the_executor_home(executor: Executor, hangar_home: Path) -> None:
    """RW-190, RW-192, RW-193, RW-204: empty root = ``worktrees`` under this executor's home,
    auto-cleanup on, keep 15; the file is ``runtime-work/worktrees.json`` there."""
    got = executor.handle("runtime.worktrees.settings.get", {})
    assert got == {
        "root": "",
        "resolvedRoot": str(hangar_home / "worktrees"),
        "autoCleanup": True,
        "keepCount": 15,
        "knownRoots": [],
    }
    executor.handle("runtime.worktrees.settings.update", {"keepCount": 3})
    assert (hangar_home / "runtime-work" / "worktrees.json").is_file()
    assert hangar_paths().as_json()["worktreesFile"] == str(
        hangar_home / "runtime-work" / "worktrees.json"
    )  # listed by `hangar paths`
    assert executor.handle("runtime.worktrees.settings.get", {})["keepCount"] == 3


def test_a_new_root_applies_to_new_worktrees_and_the_old_one_stays_known(
    executor: Executor, hangar_home: Path, store: WorktreeService, repo: Path, tmp_path: Path
) -> None:
    """RW-194, RW-195: after a root change, earlier worktrees are still listed, deleted and
    restored under the old root, which is kept in ``knownRoots``; new ones use the new root."""
    old = Path(store.prepare(str(repo), "before")["path"])
    (old / "change.txt").write_text("under the old root\n")
    new_root = tmp_path / "fast-disk" / "trees"
    done = executor.handle("runtime.worktrees.settings.update", {"root": str(new_root)})
    assert done["knownRoots"] == [str(hangar_home / "worktrees")]
    assert done["resolvedRoot"] == str(new_root)
    fresh = Path(store.prepare(str(repo), "after")["path"])
    assert fresh == new_root / "after" / "demo"
    ids = [w["worktreeId"] for w in store.list_worktrees()["repositories"][0]["worktrees"]]
    assert sorted(ids) == ["after", "before"]
    store.delete("before")
    store.restore("before")
    assert (old / "change.txt").read_text() == "under the old root\n"
    back = executor.handle("runtime.worktrees.settings.update", {"root": ""})
    assert back["knownRoots"] == [str(new_root)]  # the current root is never "known"


@pytest.fixture
def link_root(tmp_path: Path) -> Path:
    real = tmp_path / "real-root"
    real.mkdir()
    link = tmp_path / "link-root"
    link.symlink_to(real)
    return link


@pytest.mark.parametrize(
    ("payload", "code", "words"),
    [
        ({"root": "relative/trees"}, "unsafe_path", "absolute"),
        ({"root": "/tmp/a/../b"}, "unsafe_path", "normalized"),
        ({"root": "/tmp//b"}, "unsafe_path", "normalized"),
        ({"root": "/"}, "unsafe_path", "filesystem root"),
        ({"root": "/tmp/x\ny"}, "unsafe_path", "control characters"),
        ({"root": 5}, "invalid_request", "root"),
        ({"keepCount": -1}, "invalid_request", "keepCount"),
        ({"keepCount": True}, "invalid_request", "keepCount"),
        ({"keepCount": "15"}, "invalid_request", "keepCount"),
        ({"autoCleanup": "yes"}, "invalid_request", "autoCleanup"),
        ({"colour": "blue"}, "invalid_request", "colour"),
    ],
)
def test_bad_settings_are_refused_and_nothing_is_written(
    executor: Executor, hangar_home: Path, payload: dict[str, Any], code: str, words: str
) -> None:
    with pytest.raises(HangarError) as caught:
        executor.handle("runtime.worktrees.settings.update", payload)
    assert caught.value.code == code and words in str(caught.value)
    assert not (hangar_home / "runtime-work" / "worktrees.json").exists()


def test_a_root_through_a_symlink_or_onto_a_file_is_refused(
    executor: Executor, link_root: Path, tmp_path: Path
) -> None:
    """Symlinks in roots: refused with the real path named, so a root cannot be redirected."""
    with pytest.raises(HangarError) as caught:
        executor.handle("runtime.worktrees.settings.update", {"root": str(link_root / "trees")})
    assert caught.value.code == "unsafe_path"
    assert f"use the real path {tmp_path / 'real-root' / 'trees'}" in str(caught.value)
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    with pytest.raises(HangarError) as caught:
        executor.handle("runtime.worktrees.settings.update", {"root": str(a_file)})
    assert "not a directory" in str(caught.value)


def test_a_corrupt_settings_file_is_reported_never_rewritten(
    executor: Executor, hangar_home: Path
) -> None:
    file = hangar_home / "runtime-work" / "worktrees.json"
    file.parent.mkdir(parents=True)
    file.write_text('{"settings": {"keepCount": "many"')
    with pytest.raises(HangarError) as caught:
        executor.handle("runtime.worktrees.settings.get", {})
    assert caught.value.code == "corrupt_file" and str(file) in str(caught.value)
    with pytest.raises(HangarError):
        executor.handle("runtime.worktrees.settings.update", {"keepCount": 2})
    assert file.read_text() == '{"settings": {"keepCount": "many"'


@pytest.fixture
def other_filesystem(tmp_path: Path) -> Iterator[Path]:
    """A folder on a filesystem other than ``tmp_path``'s: ``/dev/shm`` (tmpfs) here."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or shm.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("no second filesystem (tmpfs at /dev/shm) on this machine")
    folder = Path(tempfile.mkdtemp(prefix="hangar-test-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_root_on_another_filesystem(
    executor: Executor, store: WorktreeService, repo: Path, other_filesystem: Path
) -> None:
    """Bad input (another filesystem): the worktree lives on tmpfs while the repository and
    its snapshot objects stay on the repository's disk; delete → restore is exact."""
    root = other_filesystem / "trees"
    store.update_settings(root=str(root))
    main_before = workspace_fingerprint(repo)
    wt = Path(store.prepare(str(repo), "far")["path"])
    assert wt.stat().st_dev != repo.stat().st_dev
    (wt / "far.bin").write_bytes(os.urandom(4096))
    (wt / "tool.sh").chmod(0o755)
    before = tree_state(wt)
    store.delete("far")
    assert not wt.exists()
    store.restore("far")
    assert tree_state(wt) == before
    assert workspace_fingerprint(repo) == main_before
