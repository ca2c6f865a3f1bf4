"""prepare: where a worktree goes, which commit it starts from, and what is refused."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from hangar.errors import HangarError
from hangar.executor.service import Executor
from hangar.executor.worktrees import WorktreeService

from .conftest import git, make_repo, workspace_fingerprint


def test_prepare_path_and_the_projects_current_branch(
    executor: Executor, hangar_home: Path, repo: Path
) -> None:
    """RW-192, RW-197, RW-204, RW-270: ``<root>/<worktreeId>/<repositoryName>`` under this
    executor's own home by default, at the project's current branch (``develop``), not git's
    default branch (``main``) and not the literal ``HEAD``."""
    before = workspace_fingerprint(repo)
    done = executor.handle(
        "runtime.worktrees.prepare", {"sourcePath": str(repo), "worktreeId": "t-1"}
    )
    path = hangar_home / "worktrees" / "t-1" / "demo"
    assert done["path"] == str(path) and path.is_dir()
    worktree = done["worktree"]
    assert worktree["branch"] == "develop"
    assert worktree["baseCommit"] == git("rev-parse", "develop", cwd=repo)
    assert git("rev-parse", "HEAD", cwd=path) == git("rev-parse", "develop", cwd=repo)
    assert (path / "README.md").read_text() == "# demo on develop\n"
    assert worktree["repositoryRoot"] == str(repo) and worktree["state"] == "active"
    assert workspace_fingerprint(repo) == before


def test_prepare_from_a_subdirectory_and_an_explicit_branch(
    executor: Executor, hangar_home: Path, repo: Path
) -> None:
    """RW-269: an explicit branch wins; a project path inside the repository names the repo."""
    done = executor.handle(
        "runtime.worktrees.prepare",
        {"sourcePath": str(repo / "src"), "worktreeId": "t-2", "branch": "main"},
    )
    assert done["worktree"]["branch"] == "main"
    assert done["path"] == str(hangar_home / "worktrees" / "t-2" / "demo")
    assert (Path(done["path"]) / "README.md").read_text() == "# demo\n"


def test_a_permanent_worktree_is_recorded_in_the_device_file(
    executor: Executor, hangar_home: Path, repo: Path
) -> None:
    """RW-207, RW-209: ``permanent: true`` is persisted in ``runtime-work/worktrees.json``;
    it only exempts the worktree from automatic cleanup: an explicit delete still works."""
    executor.handle(
        "runtime.worktrees.prepare",
        {"sourcePath": str(repo), "worktreeId": "keep-me", "permanent": True},
    )
    text = (hangar_home / "runtime-work" / "worktrees.json").read_text()
    assert '"permanent": true' in text and '"keepCount": 15' in text
    listed = executor.handle("runtime.worktrees.list", {})
    (group,) = listed["repositories"]
    assert group["repositoryName"] == "demo" and group["worktrees"][0]["permanent"] is True
    assert executor.handle("runtime.worktrees.prune", {})["decisions"] == {
        "keep-me": "keep:permanent"
    }
    gone = executor.handle("runtime.worktrees.delete", {"worktreeId": "keep-me"})
    assert gone["deleted"] is True and gone["worktree"]["state"] == "snapshot"


@pytest.mark.parametrize(
    ("payload", "code", "words"),
    [
        ({"worktreeId": "../escape"}, "unsafe_path", "not allowed"),
        ({"worktreeId": "a/b"}, "unsafe_path", "not allowed"),
        ({"worktreeId": "x.lock"}, "unsafe_path", "not allowed"),
        ({"worktreeId": ".hidden"}, "unsafe_path", "not allowed"),
        ({"worktreeId": "a..b"}, "unsafe_path", "not allowed"),
        ({"worktreeId": ""}, "invalid_request", "worktreeId"),
        ({"worktreeId": 7}, "invalid_request", "worktreeId"),
        ({"worktreeId": "x" * 65}, "invalid_request", "worktreeId"),
        ({"branch": "HEAD"}, "worktree_source_not_git", "not a branch"),
        ({"branch": "--orphan"}, "worktree_source_not_git", "not a branch"),
        ({"branch": "@{-1}"}, "worktree_source_not_git", "not a branch"),
        ({"branch": "no-such-branch"}, "worktree_source_not_git", "has no commit"),
        ({"branch": "bad..name"}, "worktree_source_not_git", "not a valid branch"),
        ({"permanent": "yes"}, "invalid_request", "permanent"),
        ({"colour": "blue"}, "invalid_request", "colour"),
    ],
)
def test_bad_prepare_requests_get_a_clear_error(
    executor: Executor,
    hangar_home: Path,
    repo: Path,
    payload: dict[str, Any],
    code: str,
    words: str,
) -> None:
    """Bad input: ids that could traverse, branch names git would read as something else."""
    body = {"sourcePath": str(repo), "worktreeId": "ok-id", **payload}
    with pytest.raises(HangarError) as caught:
        executor.handle("runtime.worktrees.prepare", body)
    assert caught.value.code == code and words in str(caught.value)
    assert not (hangar_home / "worktrees").exists() or not any(
        (hangar_home / "worktrees").iterdir()
    )


@pytest.mark.parametrize(
    ("source", "code"),
    [
        ("relative/path", "unsafe_path"),
        ("/tmp/../etc", "unsafe_path"),
        ("/no/such/dir", "worktree_source_not_git"),
    ],
)
def test_bad_source_paths(executor: Executor, source: str, code: str) -> None:
    with pytest.raises(HangarError) as caught:
        executor.handle("runtime.worktrees.prepare", {"sourcePath": source, "worktreeId": "x"})
    assert caught.value.code == code


def test_not_a_repository_bare_and_detached_are_refused(
    executor: Executor, tmp_path: Path, repo: Path
) -> None:
    """A plain folder and a bare repository are refused; a detached HEAD without an explicit
    branch is refused (hangar never guesses a branch), with one it works."""
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(HangarError) as caught:
        executor.handle("runtime.worktrees.prepare", {"sourcePath": str(plain), "worktreeId": "p"})
    assert caught.value.code == "worktree_source_not_git" and "not inside a git" in str(
        caught.value
    )
    bare = tmp_path / "bare.git"
    git("clone", "-q", "--bare", str(repo), str(bare), cwd=tmp_path)
    with pytest.raises(HangarError) as caught:
        executor.handle("runtime.worktrees.prepare", {"sourcePath": str(bare), "worktreeId": "b"})
    assert caught.value.code == "worktree_source_not_git"
    git("switch", "-q", "--detach", "HEAD~1", cwd=repo)
    with pytest.raises(HangarError) as caught:
        executor.handle("runtime.worktrees.prepare", {"sourcePath": str(repo), "worktreeId": "d"})
    assert caught.value.code == "worktree_detached_head" and "choose a branch" in str(caught.value)
    done = executor.handle(
        "runtime.worktrees.prepare",
        {"sourcePath": str(repo), "worktreeId": "d", "branch": "develop"},
    )
    assert done["worktree"]["branch"] == "develop"


def test_an_existing_id_or_directory_is_never_overwritten(
    executor: Executor, hangar_home: Path, repo: Path
) -> None:
    executor.handle("runtime.worktrees.prepare", {"sourcePath": str(repo), "worktreeId": "dup"})
    with pytest.raises(HangarError) as caught:
        executor.handle("runtime.worktrees.prepare", {"sourcePath": str(repo), "worktreeId": "dup"})
    assert caught.value.code == "worktree_target_conflict"
    squatter = hangar_home / "worktrees" / "taken" / "mine.txt"
    squatter.parent.mkdir(parents=True)
    squatter.write_text("not hangar's\n")
    with pytest.raises(HangarError) as caught:
        executor.handle(
            "runtime.worktrees.prepare", {"sourcePath": str(repo), "worktreeId": "taken"}
        )
    assert caught.value.code == "worktree_target_conflict"
    assert squatter.read_text() == "not hangar's\n"


def test_two_concurrent_prepares_of_one_id_one_wins(
    executor: Executor, store: WorktreeService, repo: Path
) -> None:
    """Bad input: two writers at once: exactly one worktree, the other gets a clear error."""
    start = threading.Barrier(2)
    results: list[object] = []

    def attempt() -> None:
        start.wait()
        try:
            results.append(store.prepare(str(repo), "race"))
        except HangarError as exc:
            results.append(exc)

    threads = [threading.Thread(target=attempt) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    wins = [r for r in results if isinstance(r, dict)]
    losses = [r for r in results if isinstance(r, HangarError)]
    assert len(wins) == 1 and len(losses) == 1
    assert losses[0].code in {"worktree_busy", "worktree_target_conflict"}
    listing = git("worktree", "list", "--porcelain", cwd=repo)
    assert listing.count("worktree ") == 2  # the main workspace and the one winner


def test_a_dirty_main_workspace_is_read_never_written(
    executor: Executor, store: WorktreeService, repo: Path
) -> None:
    """RW-189 / bad input: a dirty index and unstaged edits in the project stay exactly as
    they are through prepare, delete and restore; the worktree starts from the commit."""
    (repo / "README.md").write_text("staged in main\n")
    git("add", "README.md", cwd=repo)
    (repo / "README.md").write_text("staged in main\nand unstaged\n")
    (repo / "scratch.txt").write_text("untracked in main\n")
    before = workspace_fingerprint(repo)
    wt = Path(store.prepare(str(repo), "dirty-main")["path"])
    assert (wt / "README.md").read_text() == "# demo on develop\n"
    assert not (wt / "scratch.txt").exists()
    (wt / "mine.txt").write_text("worktree change\n")
    store.delete("dirty-main")
    store.restore("dirty-main")
    assert workspace_fingerprint(repo) == before


def test_a_root_inside_the_repository_is_refused(
    executor: Executor, store: WorktreeService, repo: Path
) -> None:
    store.update_settings(root=str(repo / "worktrees"))
    with pytest.raises(HangarError) as caught:
        store.prepare(str(repo), "inside")
    assert caught.value.code == "unsafe_path" and "inside the repository" in str(caught.value)
    assert not (repo / "worktrees").exists()


def test_another_repository_with_the_same_name_gets_its_own_group(
    executor: Executor, store: WorktreeService, repo: Path, tmp_path: Path
) -> None:
    """RW-198: the list is grouped by repository (root), each worktree under its own."""
    other = make_repo(tmp_path / "elsewhere" / "demo", branch="main")
    store.prepare(str(repo), "a-1")
    store.prepare(str(other), "b-1")
    store.prepare(str(repo), "a-2")
    groups = store.list_worktrees()["repositories"]
    assert [(g["repositoryRoot"], [w["worktreeId"] for w in g["worktrees"]]) for g in groups] == [
        (str(other), ["b-1"]),
        (str(repo), ["a-2", "a-1"]),
    ]
