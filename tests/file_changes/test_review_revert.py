"""Review and revert a turn's file changes in the task's own directory."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from hangar.errors import HangarError
from hangar.executor import trash
from hangar.executor.service import Executor

from .conftest import agent_turn, write_rollout


def _snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def _task(executor: Executor, thread: str) -> str:
    return executor.resolve_task(thread)


def _ask(executor: Executor, task: str, workspace: Path, turn: str, **extra: Any) -> Any:
    body = {"localTaskId": task, "workspacePath": str(workspace),
            "artifactId": f"turn-file-changes/0/{turn}", **extra}  # fmt: skip
    method = "revert" if "checksum" in extra else "review"
    return executor.handle(f"runtime.tasks.turn_file_changes_{method}", body)


def test_review_shows_the_turns_patch_and_revert_undoes_exactly_that_turn(
    executor: Executor, isolated_home: Path, hangar_home: Path, workspace: Path
) -> None:
    """RW-243, RW-246: the review is a patch of this turn only, with a checksum; the
    revert runs in the task's directory and brings every file back to how it was before the
    turn (edits undone, an added file removed, a deleted file and a moved file back), while a
    later turn's change to another file stays."""
    before = _snapshot(workspace)
    first = agent_turn(
        workspace,
        {"cart.py": "def total(items):\n    return sum(items) * 2\n\n\nTAX = 0\n",
         "docs/guide.md": "# guide\nnew in this turn\n",
         "legacy.txt": None},
        moves={"name.txt": "renamed.txt"},
    )  # fmt: skip
    after_first = _snapshot(workspace)
    second = agent_turn(workspace, {"README.md": "# shop\n\nA small shop, now busy.\n"})
    thread = write_rollout(isolated_home, workspace, [("turn-a", first), ("turn-b", second)])
    task = _task(executor, thread)

    review = _ask(executor, task, workspace, "turn-a")
    assert review["state"] == "applied" and review["revertible"] is True
    assert review["workspacePath"] == str(workspace) and review["turnId"] == "turn-a"
    assert review["checksum"].startswith("sha256:")
    files = {f["path"]: f for f in review["files"]}
    assert set(files) == {"cart.py", "docs/guide.md", "legacy.txt", "renamed.txt"}
    assert files["renamed.txt"]["oldPath"] == "name.txt"
    assert files["docs/guide.md"]["changeType"] == "add"
    assert "+    return sum(items) * 2" in review["patch"]
    assert "README.md" not in review["patch"]  # the other turn's change is not in it

    done = _ask(executor, task, workspace, "turn-a", checksum=review["checksum"])
    assert done["reverted"] is True and done["state"] == "reverted"
    now = _snapshot(workspace)
    expected = {**before, "README.md": now["README.md"]}
    assert now == expected  # turn-a undone, turn-b kept
    assert not (workspace / "docs").exists()  # the folder the turn created went with its file
    backup = done["backupTrashId"]
    restored_from = {Path(f["original"]).name for f in trash.read_manifest(
        hangar_home / "trash" / backup)["files"]}  # fmt: skip
    assert restored_from == {"cart.py", "guide.md", "renamed.txt"}  # what the revert replaced
    assert set(after_first) - set(now) <= {"docs/guide.md", "renamed.txt"}

    again = _ask(executor, task, workspace, "turn-a")
    assert again["state"] == "reverted" and again["revertible"] is False
    with pytest.raises(HangarError) as caught:
        _ask(executor, task, workspace, "turn-a", checksum=review["checksum"])
    assert caught.value.code == "file_changes_already_reverted"


def test_a_conflicting_revert_changes_nothing_and_says_where(
    executor: Executor, isolated_home: Path, workspace: Path
) -> None:
    """When the user edited the same lines since the turn, review says ``conflict``
    and revert refuses with the file and git's message; the directory is untouched."""
    changes = agent_turn(workspace, {"cart.py": "def total(items):\n    return 42\n\n\nTAX = 0\n",
                                     "notes.md": "added\n"})  # fmt: skip
    task = _task(executor, write_rollout(isolated_home, workspace, [("t1", changes)]))
    (workspace / "cart.py").write_text("def total(items):\n    return 43  # edited\n\n\nTAX = 0\n")
    before = _snapshot(workspace)
    review = _ask(executor, task, workspace, "t1")
    assert review["state"] == "conflict" and review["revertible"] is False
    assert review["conflict"]["path"] == "cart.py"
    with pytest.raises(HangarError) as caught:
        _ask(executor, task, workspace, "t1", checksum=review["checksum"])
    assert caught.value.code == "file_changes_conflict"
    assert caught.value.details()["path"] == "cart.py"
    assert "patch does not apply" in caught.value.details()["gitMessage"]
    assert _snapshot(workspace) == before


@pytest.mark.parametrize(
    "artifact",
    [
        "../../etc/passwd",
        "turn-file-changes/1/t1",
        "turn-file-changes/0/../t1",
        "turn-file-changes/0/t1/extra",
        "turn-file-changes/0/",
        "turn-file-changes/0/t1\n",
        "prefix/turn-file-changes/0/t1",
        "",
        42,
    ],
)
def test_artifact_ids_must_match_in_full(
    executor: Executor, isolated_home: Path, workspace: Path, artifact: object
) -> None:
    """RW-245 / path traversal: anything but ``turn-file-changes/0/<turnId>`` is refused."""
    changes = agent_turn(workspace, {"README.md": "# changed\n"})
    task = _task(executor, write_rollout(isolated_home, workspace, [("t1", changes)]))
    body = {"localTaskId": task, "workspacePath": str(workspace), "artifactId": artifact}
    with pytest.raises(HangarError) as caught:
        executor.handle("runtime.tasks.turn_file_changes_review", body)
    expected = "bad_artifact_id" if isinstance(artifact, str) and artifact else "invalid_request"
    assert caught.value.code == expected


def test_a_numeric_turn_id_is_a_valid_artifact(
    executor: Executor, isolated_home: Path, workspace: Path
) -> None:
    """RW-244: ``turn-file-changes/0/<numeric id>`` names the turn."""
    changes = agent_turn(workspace, {"README.md": "# changed\n"})
    task = _task(executor, write_rollout(isolated_home, workspace, [("20260601", changes)]))
    review = _ask(executor, task, workspace, "20260601")
    assert review["artifactId"] == "turn-file-changes/0/20260601" and review["state"] == "applied"


def test_missing_artifacts_wrong_workspace_and_stale_checksums(
    executor: Executor, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """RW-246: a turn without changes or an unknown turn is ``file_changes_missing``;
    another directory is refused; a checksum other than the reviewed one is refused."""
    changes = agent_turn(workspace, {"README.md": "# changed\n"})
    task = _task(executor, write_rollout(isolated_home, workspace, [("t1", changes), ("t2", None)]))
    for turn in ("t2", "t-unknown"):
        with pytest.raises(HangarError) as caught:
            _ask(executor, task, workspace, turn)
        assert caught.value.code == "file_changes_missing" and caught.value.http_status == 404
    with pytest.raises(HangarError) as caught:
        executor.handle(
            "runtime.tasks.turn_file_changes_review",
            {"localTaskId": task, "workspacePath": str(tmp_path), "artifactId":
             "turn-file-changes/0/t1"},
        )  # fmt: skip
    assert caught.value.code == "workspace_mismatch"
    before = _snapshot(workspace)
    with pytest.raises(HangarError) as caught:
        _ask(executor, task, workspace, "t1", checksum="sha256:" + "0" * 64)
    assert caught.value.code == "file_changes_stale"
    assert _snapshot(workspace) == before


def test_paths_outside_the_directory_and_symlinks_are_never_written(
    executor: Executor, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """RW-246 / symlinks: a recorded path outside the task's directory makes the turn not
    revertible; a folder swapped for a symlink to elsewhere is refused, not followed."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("must stay\n")
    escape = {str(outside / "victim.txt"): {"type": "add", "content": "must stay\n"}}
    task = _task(executor, write_rollout(isolated_home, workspace, [("t-out", escape)]))
    review = _ask(executor, task, workspace, "t-out")
    assert review["state"] == "not_revertible"
    assert review["files"][0]["reason"] == "outside the task's directory"
    with pytest.raises(HangarError) as caught:
        _ask(executor, task, workspace, "t-out", checksum=review["checksum"])
    assert caught.value.code == "file_changes_not_revertible"

    changes = agent_turn(workspace, {"lib/util.py": "X = 1\n"})
    other = _task(executor, write_rollout(isolated_home, workspace, [("t-link", changes)]))
    (workspace / "lib" / "util.py").rename(outside / "util.py")
    (workspace / "lib").rmdir()
    (workspace / "lib").symlink_to(outside)
    with pytest.raises(HangarError) as caught:
        _ask(executor, other, workspace, "t-link")
    assert caught.value.code == "file_changes_not_revertible" and "symlink" in str(caught.value)
    assert (outside / "util.py").read_text() == "X = 1\n"
    assert (outside / "victim.txt").read_text() == "must stay\n"
