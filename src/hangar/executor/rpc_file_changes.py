"""The file-change card's device commands (RW-242..247; ``docs/api.md``).

* ``runtime.tasks.turn_file_changes_review {localTaskId, workspacePath, artifactId}`` →
  ``{artifactId, localTaskId, turnId, messageIndex, workspacePath, checksum, patch,
  files[{path, oldPath?, changeType, additions, deletions, revertible, reason?}], revertible,
  state: applied|reverted|conflict|not_revertible, conflict?{path, message}}``
* ``runtime.tasks.turn_file_changes_revert {localTaskId, workspacePath, artifactId,
  checksum}`` → ``{reverted: true, artifactId, state: "reverted", files[{path, action}],
  backupTrashId}``

Both run in the directory the task actually ran in (its ``workspacePath``); the request must
name that same directory, and a revert the checksum its review showed. Errors:
``bad_artifact_id`` (400), ``workspace_mismatch`` (400), ``file_changes_missing`` (404: the
turn or its changes are not in the transcript, or the directory is gone),
``file_changes_stale`` (409), ``file_changes_not_revertible`` (409),
``file_changes_already_reverted`` (409), ``file_changes_conflict`` (409, ``details.path`` and
git's own message) — each leaves the directory untouched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hangar.executor.core import ExecutorCore
from hangar.executor.file_changes import revert as reverting
from hangar.executor.file_changes.artifact import (
    Artifact,
    ArtifactMissingError,
    StaleArtifactError,
    WorkspaceMismatchError,
    build_artifact,
    parse_artifact_id,
)
from hangar.executor.rpc import Handler
from hangar.model import LocalTask
from hangar.protocol import methods as m
from hangar.protocol.file_changes import RevertTurnFileChanges, TurnFileChanges


def _artifact(executor: ExecutorCore, request: TurnFileChanges) -> tuple[LocalTask, Artifact, Path]:
    turn_id = parse_artifact_id(request.artifact_id)
    task, messages = executor.messages(request.local_task_id)
    workspace = request.workspace_path
    if workspace.rstrip("/") != task.workspace_path.rstrip("/") or not task.workspace_path:
        raise WorkspaceMismatchError(
            f"task {task.local_task_id} ran in {task.workspace_path or '(no directory)'},"
            f" not {workspace}"
        )
    artifact = build_artifact(task.workspace_path, messages, turn_id)
    folder = Path(task.workspace_path)
    if not folder.is_dir():
        raise ArtifactMissingError(
            f"the task's directory {folder} is gone (restore its worktree first)",
            artifact_id=artifact.artifact_id,
        )
    return task, artifact, folder


def review(executor: ExecutorCore, request: TurnFileChanges) -> dict[str, Any]:
    task, artifact, folder = _artifact(executor, request)
    out: dict[str, Any] = {
        "artifactId": artifact.artifact_id,
        "localTaskId": task.local_task_id,
        "turnId": artifact.turn_id,
        "messageIndex": artifact.message_index,
        "workspacePath": task.workspace_path,
        "checksum": artifact.checksum,
        "patch": artifact.patch,
        "files": [f.as_json() for f in artifact.files],
        "revertible": artifact.revertible,
    }
    if not artifact.revertible:
        out["state"] = "not_revertible"
        return out
    found = reverting.check(folder, artifact)
    out["state"] = found.state
    out["revertible"] = found.state == "applied"
    if found.state == "conflict":
        out["conflict"] = {"path": found.path, "message": found.message}
    return out


def revert(executor: ExecutorCore, request: RevertTurnFileChanges) -> dict[str, Any]:
    task, artifact, folder = _artifact(executor, request)
    if request.checksum != artifact.checksum:
        raise StaleArtifactError(
            "the turn's file changes are not the ones reviewed (checksum differs); review again",
            artifact_id=artifact.artifact_id,
        )
    identity = {"localTaskId": task.local_task_id, "runtime": task.runtime}
    done = reverting.revert(folder, artifact, executor.trash_root, identity)
    return {"reverted": True, "artifactId": artifact.artifact_id, "state": "reverted", **done}


HANDLERS: dict[str, Handler] = {
    m.TURN_FILE_CHANGES_REVIEW.name: review,
    m.TURN_FILE_CHANGES_REVERT.name: revert,
}
