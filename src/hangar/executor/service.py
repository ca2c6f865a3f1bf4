"""The executor: this device's agent sessions behind one RPC entry point.

Two doors, one dispatch: :meth:`Executor.call` takes a typed request of
:mod:`hangar.protocol` (what the hub's in-process link hands over, no JSON in between);
:meth:`Executor.handle` takes a JSON payload, decodes it once and strictly into the method's
request type, and answers JSON. Each RPC family lives in its own handler module
(``rpc_tasks``, ``rpc_search``, ``rpc_archive``); the library API they share is
:class:`~hangar.executor.core.ExecutorCore`.
"""

from __future__ import annotations

from typing import Any

from hangar.executor import rpc_archive, rpc_search, rpc_tasks
from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import Handler, MethodNotSupportedError
from hangar.protocol.codec import InvalidRequest, decode, to_json
from hangar.protocol.methods import METHODS

HANDLERS: dict[str, Handler] = {
    **rpc_tasks.HANDLERS,
    **rpc_search.HANDLERS,
    **rpc_archive.HANDLERS,
}


class Executor(ExecutorCore):
    methods = frozenset(HANDLERS)
    """Every RPC method this executor serves."""

    def call(self, method: str, request: Any) -> Any:
        """Run one RPC with a typed request; returns the typed response. Raises
        :class:`hangar.errors.HangarError` subclasses on failure."""
        handler = HANDLERS.get(method)
        if handler is None:
            raise MethodNotSupportedError(method=method)
        expected = METHODS[method].request
        if not isinstance(request, expected):
            raise InvalidRequest(message=f"{method} takes a {expected.__name__}")
        return handler(self, request)

    def handle(self, method: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run one RPC with a JSON payload; returns the JSON answer."""
        spec = METHODS.get(method)
        if spec is None or method not in HANDLERS:
            raise MethodNotSupportedError(method=method)
        result = to_json(self.call(method, decode(spec.request, payload or {})))
        assert isinstance(result, dict)
        return result
