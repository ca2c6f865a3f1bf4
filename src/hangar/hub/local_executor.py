"""The in-process link to this device's executor (single-user mode).

The executor package publishes ``Executor`` with ``handle(method, payload) -> dict``. Until it
is importable, every RPC answers 501 ``not_supported``: the hub never invents runtime data.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

from hangar.hub.executor_link import ExecutorLink, InProcessExecutorLink, RpcNotSupported
from hangar.state import HangarState

log = logging.getLogger("hangar.hub")


class MissingExecutor:
    """Stands in when this installation has no executor: every call is ``not_supported``."""

    def close(self) -> None:
        """Nothing runs."""

    def call(self, method: str, payload: dict[str, Any]) -> dict[str, Any]:
        raise RpcNotSupported(method=method, message="this hangar has no local executor")


def local_executor_link(state: HangarState) -> ExecutorLink:
    """An :class:`ExecutorLink` to this device's executor, created over ``state``."""
    try:
        module = importlib.import_module("hangar.executor.service")
    except ImportError:
        log.warning("no executor found: runtime-work routes answer 501")
        return MissingExecutor()
    executor = module.Executor.from_state(state)
    supported = getattr(executor, "methods", None)
    return InProcessExecutorLink(
        handler=executor.handle,
        supported=frozenset(supported) if supported is not None else None,
        closer=lambda: close_executor(executor),
    )


def close_executor(executor: Any) -> None:
    """Stop the executor's background workers (indexer, delete worker) before its DB closes."""
    close = getattr(executor, "close", None)
    if callable(close):
        close()
    services = importlib.import_module("hangar.executor.task_services")
    services.services_for(executor).close()


def executor_of(link: ExecutorLink) -> Any | None:
    """The in-process executor behind ``link`` (for executor-side workers), if any."""
    handler = getattr(link, "handler", None)
    return getattr(handler, "__self__", None)
