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
* ``runtime.tasks.restore {localTaskId}`` → ``{restored, localTaskId, files, trashId?}``
  (``localTaskId`` may name a ``cleanup-…`` trash entry: its files come back, ``trashId``);
  ``runtime.tasks.purge {localTaskId}`` → ``{purged, localTaskId}``
* ``runtime.tasks.cleanup_preview|cleanup {localTaskIds}`` → ``{items, counts, bytes}``
"""

from __future__ import annotations

from typing import Any

import msgspec

from hangar.errors import HangarError
from hangar.executor import cleanup, delete_worker
from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import Handler
from hangar.protocol import methods as m
from hangar.protocol.tasks import (
    ArchivedListRequest,
    ArchivedMany,
    ArchiveProjectRequest,
    ArchiveResult,
    DeleteAccepted,
    DeleteBulkRequest,
    DeleteProgress,
    DeleteProgressRequest,
    NoArguments,
    Purged,
    Renamed,
    RenameRequest,
    Restored,
    TaskIdsRequest,
    TaskRef,
)


def rename(executor: ExecutorCore, request: RenameRequest) -> Renamed:
    with executor.controls() as controls:
        done = executor.lifecycle.rename(request.local_task_id, request.title, controls)
    return msgspec.convert(done, Renamed)


def _set_archived(executor: ExecutorCore, request: TaskRef, archived: bool) -> ArchiveResult:
    with executor.controls() as controls:
        done = executor.lifecycle.set_archived(request.local_task_id, archived, controls)
    return msgspec.convert(done, ArchiveResult)


def archive(executor: ExecutorCore, request: TaskRef) -> ArchiveResult:
    return _set_archived(executor, request, True)


def unarchive(executor: ExecutorCore, request: TaskRef) -> ArchiveResult:
    """Unarchive, then bring back the task's worktree if it was removed with a snapshot
    (RW-188): ``worktree`` in the reply, or ``worktreeError`` when it could not be restored
    (the task stays unarchived either way)."""
    result = _set_archived(executor, request, False)
    if result.archived is False and result.cleanup_reason is None:
        task = executor.index.get(result.local_task_id)
        try:
            result.worktree = executor.worktrees.restore_for_task(task.workspace_path)
        except HangarError as exc:
            result.worktree_error = {"code": exc.code, "message": str(exc)}
    return result


def archive_project(executor: ExecutorCore, request: ArchiveProjectRequest) -> ArchivedMany:
    executor.refresh_index()
    with executor.controls() as controls:
        done = executor.lifecycle.archive_where(controls, request.project_key)
    return msgspec.convert(done, ArchivedMany)


def archive_all(executor: ExecutorCore, request: NoArguments) -> ArchivedMany:
    executor.refresh_index()
    with executor.controls() as controls:
        done = executor.lifecycle.archive_where(controls, None)
    return msgspec.convert(done, ArchivedMany)


def archived_list(executor: ExecutorCore, request: ArchivedListRequest) -> dict[str, Any]:
    executor.refresh_index()
    return executor.lifecycle.archived_list(request.project_key)


def delete(executor: ExecutorCore, request: TaskRef) -> DeleteAccepted:
    return _delete(executor, [request.local_task_id], None)


def delete_bulk(executor: ExecutorCore, request: DeleteBulkRequest) -> DeleteAccepted:
    return _delete(executor, request.local_task_ids, request.batch_id)


def _delete(executor: ExecutorCore, ids: list[str], batch: str | None) -> DeleteAccepted:
    reply = delete_worker.request_delete(executor.db, ids, batch)
    executor.deleter.wake()
    return msgspec.convert(reply, DeleteAccepted)


def delete_progress(executor: ExecutorCore, request: DeleteProgressRequest) -> DeleteProgress:
    return msgspec.convert(
        delete_worker.delete_progress(executor.db, request.batch_id), DeleteProgress
    )


def restore(executor: ExecutorCore, request: TaskRef) -> Restored:
    done = delete_worker.restore(executor.db, executor.trash_root, request.local_task_id)
    return msgspec.convert(done, Restored)


def purge(executor: ExecutorCore, request: TaskRef) -> Purged:
    done = delete_worker.purge_task(executor.db, executor.trash_root, request.local_task_id)
    return msgspec.convert(done, Purged)


def cleanup_preview(executor: ExecutorCore, request: TaskIdsRequest) -> dict[str, Any]:
    payload = {"localTaskIds": request.local_task_ids}
    return cleanup.plan(executor.db, executor.roots, payload, executor.worktrees)


def run_cleanup(executor: ExecutorCore, request: TaskIdsRequest) -> dict[str, Any]:
    payload = {"localTaskIds": request.local_task_ids}
    return cleanup.run(
        executor.db, executor.roots, executor.trash_root, payload, executor.worktrees
    )


HANDLERS: dict[str, Handler] = {
    m.TASKS_RENAME.name: rename,
    m.TASKS_ARCHIVE.name: archive,
    m.TASKS_UNARCHIVE.name: unarchive,
    m.TASKS_ARCHIVE_PROJECT.name: archive_project,
    m.TASKS_ARCHIVE_ALL.name: archive_all,
    m.TASKS_ARCHIVED_LIST.name: archived_list,
    m.TASKS_DELETE.name: delete,
    m.TASKS_DELETE_BULK.name: delete_bulk,
    m.TASKS_DELETE_PROGRESS.name: delete_progress,
    m.TASKS_RESTORE.name: restore,
    m.TASKS_PURGE.name: purge,
    m.TASKS_CLEANUP_PREVIEW.name: cleanup_preview,
    m.TASKS_CLEANUP.name: run_cleanup,
}
