"""The executor: this device's agent sessions behind one RPC entry point.

``Executor.handle(method, payload)`` is what the hub calls (in process through
:class:`~hangar.hub.executor_link.InProcessExecutorLink`, or over the wire); each RPC family
lives in its own handler module (``rpc_tasks`` for ``runtime.tasks.list|transcript``,
``rpc_search``, ``rpc_archive``). The library API the handlers and the CLI share is
:class:`~hangar.executor.core.ExecutorCore`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hangar.executor import rpc_archive, rpc_search, rpc_tasks
from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import MethodNotSupportedError

Handler = Callable[[ExecutorCore, dict[str, Any]], dict[str, Any]]

HANDLERS: dict[str, Handler] = {
    **rpc_tasks.HANDLERS,
    **rpc_search.HANDLERS,
    **rpc_archive.HANDLERS,
}


class Executor(ExecutorCore):
    methods = frozenset(HANDLERS)
    """Every RPC method this executor serves."""

    def handle(self, method: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run one RPC. Raises :class:`hangar.errors.HangarError` subclasses on failure."""
        handler = HANDLERS.get(method)
        if handler is None:
            raise MethodNotSupportedError(method=method)
        return handler(self, dict(payload or {}))
