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

from typing import TYPE_CHECKING, Any

from hangar.errors import NotFoundError, UsageError
from hangar.executor.rpc import field
from hangar.executor.task_services import services_for
from hangar.executor.worktrees import WorktreeService

if TYPE_CHECKING:
    from hangar.executor.service import Executor


def _store(executor: Executor) -> WorktreeService:
    return services_for(executor).worktrees


def _worktree_id(store: WorktreeService, payload: dict[str, Any]) -> str:
    """The id named by ``worktreeId``, or by ``path`` (exactly a managed worktree's path)."""
    wid = field(payload, "worktreeId", str)
    path = field(payload, "path", str)
    if wid:
        return wid
    if path:
        record = store.record_for_workspace(path)
        if record is None or record.path != path.rstrip("/"):
            raise NotFoundError(kind="worktree", key=path)
        return record.worktree_id
    raise UsageError("worktreeId (or path) is required")


def settings_get(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    return _store(executor).settings()


def settings_update(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    return _store(executor).update_settings(payload)


def prepare(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    return _store(executor).prepare(
        payload.get("sourcePath"),
        payload.get("worktreeId"),
        branch=payload.get("branch"),
        permanent=payload.get("permanent", False),
    )


def list_worktrees(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    return _store(executor).list_worktrees()


def delete(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    store = _store(executor)
    return store.delete(_worktree_id(store, payload))


def restore(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    store = _store(executor)
    return store.restore(_worktree_id(store, payload))


def prune(executor: Executor, payload: dict[str, Any]) -> dict[str, Any]:
    return _store(executor).prune()


HANDLERS = {
    "runtime.worktrees.settings.get": settings_get,
    "runtime.worktrees.settings.update": settings_update,
    "runtime.worktrees.prepare": prepare,
    "runtime.worktrees.list": list_worktrees,
    "runtime.worktrees.delete": delete,
    "runtime.worktrees.restore": restore,
    "runtime.worktrees.prune": prune,
}
