"""``runtime.worktrees.*``: the device-level worktree store (RW-196; ``docs/worktrees.md``).

* ``runtime.worktrees.settings.get {}`` → ``{root, resolvedRoot, autoCleanup, keepCount,
  knownRoots}``
* ``runtime.worktrees.settings.update {root?, autoCleanup?, keepCount?}`` → the settings and
  ``pruned`` (automatic cleanup runs after every change, RW-200)
* ``runtime.worktrees.prepare {sourcePath, worktreeId, branch?, permanent?}`` →
  ``{worktree, path, pruned}``
* ``runtime.worktrees.list {}`` → ``{repositories[{repositoryRoot, repositoryName,
  worktrees[Worktree + tasks[]]}], settings}``
* ``runtime.worktrees.delete {worktreeId | path}`` → ``{deleted, archivedTaskIds, worktree}``
  (archives the linked tasks, snapshots, then removes)
* ``runtime.worktrees.restore {worktreeId | path}`` → ``{restored, headRef?, files?,
  worktree}``
* ``runtime.worktrees.prune {}`` → ``{removed[], errors[], decisions{id: remove|keep:…}}``
"""

from __future__ import annotations

from typing import Any

from hangar.errors import NotFoundError, UsageError
from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import Handler
from hangar.protocol import methods as m
from hangar.protocol.tasks import NoArguments
from hangar.protocol.worktrees import PrepareWorktree, WorktreeRef, WorktreeSettingsUpdate


def _worktree_id(executor: ExecutorCore, request: WorktreeRef) -> str:
    """The id named by ``worktreeId``, or by ``path`` (exactly a managed worktree's path)."""
    if (request.worktree_id is None) == (request.path is None):
        raise UsageError("give exactly one of worktreeId and path")
    if request.worktree_id is not None:
        return request.worktree_id
    path = str(request.path).rstrip("/")
    record = executor.worktrees.record_for_workspace(path)
    if record is None or record.path != path:
        raise NotFoundError(kind="worktree", key=path)
    return record.worktree_id


def settings_get(executor: ExecutorCore, request: NoArguments) -> dict[str, Any]:
    return executor.worktrees.settings()


def settings_update(executor: ExecutorCore, request: WorktreeSettingsUpdate) -> dict[str, Any]:
    return executor.worktrees.update_settings(
        root=request.root, auto_cleanup=request.auto_cleanup, keep_count=request.keep_count
    )


def prepare(executor: ExecutorCore, request: PrepareWorktree) -> dict[str, Any]:
    return executor.worktrees.prepare(
        request.source_path, request.worktree_id, request.branch, request.permanent
    )


def list_worktrees(executor: ExecutorCore, request: NoArguments) -> dict[str, Any]:
    return executor.worktrees.list_worktrees()


def delete(executor: ExecutorCore, request: WorktreeRef) -> dict[str, Any]:
    return executor.worktrees.delete(_worktree_id(executor, request))


def restore(executor: ExecutorCore, request: WorktreeRef) -> dict[str, Any]:
    return executor.worktrees.restore(_worktree_id(executor, request))


def prune(executor: ExecutorCore, request: NoArguments) -> dict[str, Any]:
    return executor.worktrees.prune()


HANDLERS: dict[str, Handler] = {
    m.WORKTREES_SETTINGS_GET.name: settings_get,
    m.WORKTREES_SETTINGS_UPDATE.name: settings_update,
    m.WORKTREES_PREPARE.name: prepare,
    m.WORKTREES_LIST.name: list_worktrees,
    m.WORKTREES_DELETE.name: delete,
    m.WORKTREES_RESTORE.name: restore,
    m.WORKTREES_PRUNE.name: prune,
}
