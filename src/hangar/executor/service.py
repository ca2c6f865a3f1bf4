"""The executor: this device's agent sessions behind one RPC entry point.

``Executor.handle(method, payload)`` is what the hub (in-process or over the wire) calls;
each RPC family lives in its own handler module (``rpc_tasks`` for ``runtime.tasks.*``).
The Python methods below are the library API the handlers and the CLI share.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hangar.agents.base import AgentStore, SessionSource
from hangar.agents.registry import open_stores
from hangar.device import Device
from hangar.errors import NotFoundError
from hangar.executor import rpc_archive, rpc_search, rpc_tasks
from hangar.executor.database import ExecutorDatabase
from hangar.executor.rpc import MethodNotSupportedError
from hangar.executor.task_index import TaskIndex
from hangar.model import LocalTask, Transcript
from hangar.settings import Settings
from hangar.state import HangarState
from hangar.transcripts.engine import TranscriptEngine
from hangar.transcripts.paging import DEFAULT_LIMIT, page

Handler = Callable[["Executor", dict[str, Any]], dict[str, Any]]

HANDLERS: dict[str, Handler] = {
    **rpc_tasks.HANDLERS,
    **rpc_search.HANDLERS,
    **rpc_archive.HANDLERS,
}


class Executor:
    def __init__(
        self,
        settings: Settings,
        device: Device,
        db: ExecutorDatabase,
        stores: Mapping[str, AgentStore] | None = None,
    ) -> None:
        self.settings = settings
        self.device = device
        self.db = db
        self.stores: Mapping[str, AgentStore] = stores if stores is not None else open_stores()
        self.index = TaskIndex(db, device.device_id)
        self.engine = TranscriptEngine(capacity=int(settings.transcript_cache_entries))
        self._refresh_lock = threading.Lock()

    @classmethod
    def from_state(
        cls, state: HangarState, stores: Mapping[str, AgentStore] | None = None
    ) -> Executor:
        return cls(state.settings, state.device, state.executor_db, stores)

    def handle(self, method: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run one RPC. Raises :class:`hangar.errors.HangarError` subclasses on failure."""
        handler = HANDLERS.get(method)
        if handler is None:
            raise MethodNotSupportedError(method=method)
        return handler(self, dict(payload or {}))

    # ------------------------------------------------------------- library
    def refresh_index(self) -> None:
        with self._refresh_lock:
            self.index.refresh(self.stores)

    def list_tasks(
        self, *, runtime: str | None = None, include_archived: bool = False
    ) -> list[LocalTask]:
        self.refresh_index()
        return self.index.list(runtime=runtime, include_archived=include_archived)

    def resolve_task(self, key: str) -> str:
        """A localTaskId from an id, a unique id prefix, or the agent's own session id."""
        try:
            return self.index.resolve(key)
        except NotFoundError:
            self.refresh_index()
            return self.index.resolve(key)

    def transcript(
        self,
        local_task_id: str,
        *,
        limit: int = DEFAULT_LIMIT,
        before_cursor: str | None = None,
        refresh: bool = True,
    ) -> tuple[LocalTask, Transcript]:
        row = self.index.row(local_task_id)
        store = self.stores.get(row["runtime"])
        if store is None or not row["source_path"]:
            raise NotFoundError(kind="runtime", key=row["runtime"])
        source = SessionSource(
            runtime=row["runtime"],
            session_id=row["session_key"],
            path=Path(row["source_path"]),
            runtime_handle=self.index.get(local_task_id).runtime_handle,
        )
        try:
            entry = self.engine.read(local_task_id, store, source, refresh=refresh)
        except FileNotFoundError:
            self.engine.forget(local_task_id)
            self.index.mark_missing(local_task_id)
            empty = Transcript(messages=[], total_messages=0, has_more=False)
            return self.index.get(local_task_id), empty
        summary = entry.summary
        row = self.index.row(local_task_id)
        known = (row["message_count"], row["status"], row["title"], row["model"])
        learned = (
            summary.message_count,
            summary.status,
            summary.title or row["title"],
            summary.model or row["model"],
        )
        if known != learned:
            self.index.record_parse(local_task_id, summary)
        task = self.index.get(local_task_id)
        result = page(
            entry.messages,
            limit=limit,
            before_cursor=before_cursor,
            checklist=summary.checklist,
            context_usage=summary.context_usage,
        )
        return task, result
