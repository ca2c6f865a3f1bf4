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
from typing import TYPE_CHECKING, Any

from hangar.executor.file_changes import revert as reverting
from hangar.executor.file_changes.artifact import (
    Artifact,
    ArtifactMissingError,
    StaleArtifactError,
    WorkspaceMismatchError,
    build_artifact,
    parse_artifact_id,
)
from hangar.executor.rpc import required
from hangar.executor.task_services import services_for
from hangar.model import LocalTask

if TYPE_CHECKING:
    from hangar.executor.service import Executor


def _artifact(executor: Executor, payload: dict[str, Any]) -> tuple[LocalTask, Artifact, Path]:
    task_id = required(payload, "localTaskId", str)
    workspace = required(payload, "workspacePath", str)
    turn_id = parse_artifact_id(payload.get("artifactId"))
    task, messages = executor.messages(task_id)
    if workspace.rstrip("/") != task.workspace_path.rstrip("/") or not task.workspace_path:
        raise WorkspaceMismatchError(
            f"task {task_id} ran in {task.workspace_path or '(no directory)'}, not {workspace}"
        )
    artifact = build_artifact(task.workspace_path, messages, turn_id)
    folder = Path(task.workspace_path)
    if not folder.is_dir():
        raise ArtifactMissingError(
            f"the task's directory {folder} is gone (restore its worktree first)",
            artifact_id=artifact.artifact_id,
        )
    return task, artifact, folder


def review(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    task, artifact, folder = _artifact(executor, payload)
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


def revert(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    checksum = required(payload, "checksum", str)
    task, artifact, folder = _artifact(executor, payload)
    if checksum != artifact.checksum:
        raise StaleArtifactError(
            "the turn's file changes are not the ones reviewed (checksum differs); review again",
            artifact_id=artifact.artifact_id,
        )
    identity = {"localTaskId": task.local_task_id, "runtime": task.runtime}
    done = reverting.revert(folder, artifact, services_for(executor).trash_root, identity)
    return {"reverted": True, "artifactId": artifact.artifact_id, "state": "reverted", **done}


HANDLERS = {
    "runtime.tasks.turn_file_changes_review": review,
    "runtime.tasks.turn_file_changes_revert": revert,
}
