"""Lifecycle RPCs: rename, archive, the archived list, two-phase delete and cleanup.

* ``runtime.tasks.rename {localTaskId, title}`` → ``{localTaskId, title, updatedAt, via}``
* ``runtime.tasks.archive|unarchive {localTaskId}`` → ``{localTaskId, archived, via}``, or
  ``{localTaskId, archived: false, cleanupReason: "missing_rollout"}`` for a stale Codex thread
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

from typing import Any

from hangar.errors import UsageError
from hangar.executor import cleanup, delete_worker
from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import field, required

BULK_LIMIT = 50
"""At most this many ids per ``delete_bulk`` call: the UI submits small batches (RW-177)."""


def rename(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    with executor.controls() as controls:
        return executor.lifecycle.rename(payload.get("localTaskId"), payload.get("title"), controls)


def _set_archived(
    executor: ExecutorCore, payload: dict[str, Any], archived: bool
) -> dict[str, Any]:
    with executor.controls() as controls:
        return executor.lifecycle.set_archived(payload.get("localTaskId"), archived, controls)


def archive(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    return _set_archived(executor, payload, True)


def unarchive(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    return _set_archived(executor, payload, False)


def archive_project(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    key = required(payload, "projectKey", str)
    executor.refresh_index()
    with executor.controls() as controls:
        return executor.lifecycle.archive_where(controls, key)


def archive_all(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    executor.refresh_index()
    with executor.controls() as controls:
        return executor.lifecycle.archive_where(controls, None)


def archived_list(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    executor.refresh_index()
    return executor.lifecycle.archived_list(field(payload, "projectKey", str))


def delete(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    task_id = required(payload, "localTaskId", str)
    return _delete(executor, [task_id], None)


def delete_bulk(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    ids = payload.get("localTaskIds")
    if not isinstance(ids, list) or not ids:
        raise UsageError("localTaskIds must be a non-empty list")
    if len(ids) > BULK_LIMIT:
        raise UsageError(f"at most {BULK_LIMIT} ids per delete_bulk call; send smaller batches")
    return _delete(executor, ids, field(payload, "batchId", str))


def _delete(executor: ExecutorCore, ids: list[Any], batch: str | None) -> dict[str, Any]:
    reply = delete_worker.request_delete(executor.db, ids, batch)
    executor.deleter.wake()
    return reply


def delete_progress(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    return delete_worker.delete_progress(executor.db, field(payload, "batchId", str))


def restore(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    task_id = required(payload, "localTaskId", str)
    return delete_worker.restore(executor.db, executor.trash_root, task_id)


def purge(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    task_id = required(payload, "localTaskId", str)
    return delete_worker.purge_task(executor.db, executor.trash_root, task_id)


def cleanup_preview(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    return cleanup.plan(executor.db, executor.roots, payload)


def run_cleanup(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    return cleanup.run(executor.db, executor.roots, executor.trash_root, payload)


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
