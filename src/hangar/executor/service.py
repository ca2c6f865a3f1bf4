"""The executor: this device's agent sessions behind one RPC entry point.

Two doors, one dispatch: :meth:`Executor.call` takes a typed request of
:mod:`hangar.protocol` (what the hub's in-process link hands over, no JSON in between);
:meth:`Executor.handle` takes a JSON payload, decodes it once and strictly into the method's
request type, and answers JSON. Each RPC family lives in its own handler module
(``rpc_tasks``, ``rpc_search``, ``rpc_archive``, ``rpc_turns``, ``rpc_create``,
``rpc_copy``, ``rpc_transfer``, ``rpc_usage``, ``rpc_run_log``, ``rpc_worktrees``,
``rpc_file_changes``, ``rpc_terminal``, ``rpc_files``), imported the first time one of its
methods is called, so a ``hangar tasks list`` never loads the delete worker, the search engine
or the turns; the library API they share is :class:`~hangar.executor.core.ExecutorCore`.
"""

from __future__ import annotations

import importlib
from typing import Any

from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import Handler, MethodNotSupportedError
from hangar.protocol import methods as m
from hangar.protocol.codec import InvalidRequest, decode, to_json
from hangar.protocol.methods import METHODS

FAMILIES: dict[str, tuple[str, ...]] = {
    "hangar.executor.rpc_tasks": (
        m.TASKS_LIST.name,
        m.TASKS_TRANSCRIPT.name,
        m.TASKS_GLANCE.name,
    ),
    "hangar.executor.rpc_search": (m.TASKS_SEARCH.name, m.INDEX_RUN.name, m.INDEX_STATUS.name),
    "hangar.executor.rpc_archive": (
        m.TASKS_RENAME.name,
        m.TASKS_ARCHIVE.name,
        m.TASKS_UNARCHIVE.name,
        m.TASKS_ARCHIVE_PROJECT.name,
        m.TASKS_ARCHIVE_ALL.name,
        m.TASKS_ARCHIVED_LIST.name,
        m.TASKS_DELETE.name,
        m.TASKS_DELETE_BULK.name,
        m.TASKS_DELETE_PROGRESS.name,
        m.TASKS_RESTORE.name,
        m.TASKS_PURGE.name,
        m.TASKS_CLEANUP_PREVIEW.name,
        m.TASKS_CLEANUP.name,
    ),
    "hangar.executor.rpc_turns": (
        m.TASKS_SEND.name,
        m.TASKS_CANCEL.name,
        m.TASKS_GUIDANCE.name,
        m.TASKS_COMPACT.name,
        m.TASKS_GOAL_GET.name,
        m.TASKS_MODELS.name,
        m.TASKS_ACTIVITY.name,
        m.TASKS_APPROVAL_ANSWER.name,
        m.AGENTS_CONFIG_UPDATE.name,
    ),
    "hangar.executor.rpc_create": (
        m.TASKS_CREATE.name,
        m.AGENTS_MODELS.name,
        m.PROJECTS_LIST.name,
        m.PROJECTS_CREATE.name,
    ),
    "hangar.executor.rpc_copy": (m.TASKS_COPY.name,),
    "hangar.executor.rpc_transfer": (
        m.TRANSFER_SOURCE.name,
        m.TRANSFER_CHECK.name,
        m.TRANSFER_EXPORT.name,
        m.TRANSFER_IMPORT.name,
        m.TRANSFER_OFFER.name,
        m.TRANSFER_UPLOAD.name,
        m.TRANSFER_FETCH.name,
        m.TRANSFER_WITHDRAW.name,
    ),
    "hangar.executor.rpc_usage": (m.USAGE_SUMMARY.name,),
    "hangar.executor.rpc_run_log": (m.TASKS_RUN_MESSAGES.name,),
    "hangar.executor.rpc_worktrees": (
        m.WORKTREES_SETTINGS_GET.name,
        m.WORKTREES_SETTINGS_UPDATE.name,
        m.WORKTREES_PREPARE.name,
        m.WORKTREES_LIST.name,
        m.WORKTREES_DELETE.name,
        m.WORKTREES_RESTORE.name,
        m.WORKTREES_PRUNE.name,
    ),
    "hangar.executor.rpc_file_changes": (
        m.TURN_FILE_CHANGES_REVIEW.name,
        m.TURN_FILE_CHANGES_REVERT.name,
    ),
    "hangar.executor.rpc_terminal": (
        m.TERMINAL_OPEN.name,
        m.TERMINAL_INPUT.name,
        m.TERMINAL_RESIZE.name,
        m.TERMINAL_REPLAY.name,
        m.TERMINAL_FLOW.name,
        m.TERMINAL_CLOSE.name,
        m.TERMINAL_LIST.name,
    ),
    "hangar.executor.rpc_files": (m.FILES_LIST.name, m.FILES_READ.name, m.FILES_STATUS.name),
}
"""Each handler module and the methods its ``HANDLERS`` serve (a test keeps them equal)."""

_MODULE_OF = {method: module for module, methods in FAMILIES.items() for method in methods}


def handler(method: str) -> Handler | None:
    """The handler of ``method`` (importing its family's module), or ``None``."""
    module = _MODULE_OF.get(method)
    if module is None:
        return None
    handlers: dict[str, Handler] = importlib.import_module(module).HANDLERS
    return handlers[method]


class Executor(ExecutorCore):
    methods = frozenset(_MODULE_OF)
    """Every RPC method this executor serves."""

    def call(self, method: str, request: Any) -> Any:
        """Run one RPC with a typed request; returns the typed response. Raises
        :class:`hangar.errors.HangarError` subclasses on failure."""
        found = handler(method)
        if found is None:
            raise MethodNotSupportedError(method=method)
        expected = METHODS[method].request
        if not isinstance(request, expected):
            raise InvalidRequest(message=f"{method} takes a {expected.__name__}")
        return found(self, request)

    def handle(self, method: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run one RPC with a JSON payload; returns the JSON answer."""
        spec = METHODS.get(method)
        if spec is None or method not in _MODULE_OF:
            raise MethodNotSupportedError(method=method)
        result = to_json(self.call(method, decode(spec.request, payload or {})))
        assert isinstance(result, dict)
        return result
