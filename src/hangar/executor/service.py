"""The executor: this device's agent sessions behind one RPC entry point.

``Executor.handle(method, payload)`` is what the hub calls (in process through
:class:`~hangar.hub.executor_link.InProcessExecutorLink`, or over the wire); each RPC family
lives in its own handler module (``rpc_tasks`` for ``runtime.tasks.list|transcript``,
``rpc_search``, ``rpc_archive``), imported the first time one of its methods is called, so a
``hangar tasks list`` never loads the delete worker or the search engine. The library API the
handlers and the CLI share is :class:`~hangar.executor.core.ExecutorCore`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import MethodNotSupportedError

Handler = Callable[[ExecutorCore, dict[str, Any]], dict[str, Any]]

FAMILIES: dict[str, tuple[str, ...]] = {
    "hangar.executor.rpc_tasks": ("runtime.tasks.list", "runtime.tasks.transcript"),
    "hangar.executor.rpc_search": (
        "runtime.tasks.search",
        "runtime.index.run",
        "runtime.index.status",
    ),
    "hangar.executor.rpc_archive": (
        "runtime.tasks.rename",
        "runtime.tasks.archive",
        "runtime.tasks.unarchive",
        "runtime.tasks.archive_project",
        "runtime.tasks.archive_all",
        "runtime.tasks.archived_list",
        "runtime.tasks.delete",
        "runtime.tasks.delete_bulk",
        "runtime.tasks.delete_progress",
        "runtime.tasks.restore",
        "runtime.tasks.purge",
        "runtime.tasks.cleanup_preview",
        "runtime.tasks.cleanup",
    ),
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

    def handle(self, method: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run one RPC. Raises :class:`hangar.errors.HangarError` subclasses on failure."""
        found = handler(method)
        if found is None:
            raise MethodNotSupportedError(method=method)
        return found(self, dict(payload or {}))
