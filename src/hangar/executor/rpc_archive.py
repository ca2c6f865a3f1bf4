"""Lifecycle RPCs: rename, archive, the archived list, two-phase delete and cleanup.

* ``runtime.tasks.rename {localTaskId, title}`` → ``{localTaskId, title, updatedAt, via}``
* ``runtime.tasks.archive|unarchive {localTaskId}`` → ``{localTaskId, archived, via}``, or
  ``{localTaskId, archived: false, cleanupReason: "missing_rollout"}`` for a stale Codex thread;
  unarchive also restores a removed worktree (``worktree`` / ``worktreeError``)
* ``runtime.tasks.archive_project {projectKey}`` / ``runtime.tasks.archive_all {}`` →
  ``{archived[], missingRollout[], count}``
* ``runtime.tasks.archived_list {projectKey?}`` → ``{items, projectGroups, total}``
* ``runtime.tasks.delete {localTaskId}`` / ``runtime.tasks.delete_bulk {localTaskIds,
  batchId?}`` → ``{deleted: true, batchId, cleanup: {background: true}}`` (tombstone now,
  files later); ``runtime.tasks.delete_progress {batchId?}`` → ``{batchId, total, done,
  byState}``
* ``runtime.tasks.restore {localTaskId}`` → ``{restored, localTaskId, files}``;
  ``runtime.tasks.purge {localTaskId}`` → ``{purged, localTaskId}``
* ``runtime.tasks.cleanup_preview|cleanup {localTaskIds}`` → ``{items, counts, bytes}``
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hangar.errors import HangarError, UsageError
from hangar.executor import cleanup, delete_worker
from hangar.executor.rpc import field, required
from hangar.executor.task_services import services_for

if TYPE_CHECKING:
    from hangar.executor.service import Executor

BULK_LIMIT = 50
"""At most this many ids per ``delete_bulk`` call: the UI submits small batches (RW-177)."""


def rename(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    services = services_for(executor)
    with services.codex() as codex:
        return services.lifecycle.rename(payload.get("localTaskId"), payload.get("title"), codex)


def _set_archived(executor: Executor, payload: dict[str, Any], archived: bool) -> dict[str, Any]:
    services = services_for(executor)
    with services.codex() as codex:
        return services.lifecycle.set_archived(payload.get("localTaskId"), archived, codex)


def archive(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    return _set_archived(executor, payload, True)


def unarchive(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    """Unarchive, then bring back the task's worktree if it was removed with a snapshot
    (RW-188): ``worktree`` in the reply, or ``worktreeError`` when it could not be restored
    (the task stays unarchived either way)."""
    result = _set_archived(executor, payload, False)
    if result.get("archived") is False and "cleanupReason" not in result:
        task = executor.index.get(result["localTaskId"])
        try:
            restored = services_for(executor).worktrees.restore_for_task(task.workspace_path)
        except HangarError as exc:
            result["worktreeError"] = {"code": exc.code, "message": str(exc)}
        else:
            if restored is not None:
                result["worktree"] = restored
    return result


def archive_project(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    key = required(payload, "projectKey", str)
    services = services_for(executor)
    executor.refresh_index()
    with services.codex() as codex:
        return services.lifecycle.archive_where(codex, key)


def archive_all(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    services = services_for(executor)
    executor.refresh_index()
    with services.codex() as codex:
        return services.lifecycle.archive_where(codex, None)


def archived_list(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    executor.refresh_index()
    return services_for(executor).lifecycle.archived_list(field(payload, "projectKey", str))


def delete(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    task_id = required(payload, "localTaskId", str)
    return _delete(executor, [task_id], None)


def delete_bulk(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    ids = payload.get("localTaskIds")
    if not isinstance(ids, list) or not ids:
        raise UsageError("localTaskIds must be a non-empty list")
    if len(ids) > BULK_LIMIT:
        raise UsageError(f"at most {BULK_LIMIT} ids per delete_bulk call; send smaller batches")
    return _delete(executor, ids, field(payload, "batchId", str))


def _delete(executor: Executor, ids: list[Any], batch: str | None) -> dict[str, Any]:
    services = services_for(executor)
    reply = delete_worker.request_delete(executor.db, ids, batch)
    services.wake_deleter()
    return reply


def delete_progress(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    return delete_worker.delete_progress(executor.db, field(payload, "batchId", str))


def restore(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    services = services_for(executor)
    task_id = required(payload, "localTaskId", str)
    return delete_worker.restore(executor.db, services.trash_root, task_id)


def purge(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    services = services_for(executor)
    task_id = required(payload, "localTaskId", str)
    return delete_worker.purge_task(executor.db, services.trash_root, task_id)


def cleanup_preview(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    services = services_for(executor)
    return cleanup.plan(executor.db, services.roots, payload, services.worktrees)


def run_cleanup(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    services = services_for(executor)
    return cleanup.run(
        executor.db, services.roots, services.trash_root, payload, services.worktrees
    )


HANDLERS = {
    "runtime.tasks.rename": rename,
    "runtime.tasks.archive": archive,
    "runtime.tasks.unarchive": unarchive,
    "runtime.tasks.archive_project": archive_project,
    "runtime.tasks.archive_all": archive_all,
    "runtime.tasks.archived_list": archived_list,
    "runtime.tasks.delete": delete,
    "runtime.tasks.delete_bulk": delete_bulk,
    "runtime.tasks.delete_progress": delete_progress,
    "runtime.tasks.restore": restore,
    "runtime.tasks.purge": purge,
    "runtime.tasks.cleanup_preview": cleanup_preview,
    "runtime.tasks.cleanup": run_cleanup,
}
