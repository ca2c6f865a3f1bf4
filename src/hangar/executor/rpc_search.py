"""``runtime.tasks.search`` (RW-049..RW-058).

Payload ``{query, limit?, includeArchived?, includeToolOutput?, projectId?}`` → ``{"results":
[{deviceId, localTaskId, title, snippet, messageIndex, role, updatedAt, deviceName,
workspacePath, runtime, runtimeHandle}…]}`` (see :mod:`hangar.executor.search` for the rules
and :mod:`hangar.executor.search_text` for the query language). The index is brought up to
date first; while a first, large build runs in the background the answer carries
``"indexing": {tasksTotal, tasksDone, totalBytes, doneBytes, errors}`` and the results found so
far. Searching reads only the device's own index, never a hub cache (RW-050, RW-061).

``runtime.index.run {}`` (called once by ``hangar serve``'s index worker at start) brings the
search index up to date and resumes deletes left queued by a previous run; it returns
``{indexed, errors, totalBytes, pendingDeletes}``. ``runtime.index.status {}`` returns the
progress of the running or last build.
"""

from __future__ import annotations

from typing import Any

from hangar.executor.core import ExecutorCore
from hangar.executor.search import search
from hangar.executor.search_text import compile_query


def search_tasks(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    compile_query(payload.get("query"))  # a bad query fails before any indexing work
    progress = executor.search.ensure()
    out = search(executor.db, executor.device, payload)
    if progress is not None:
        out["indexing"] = progress.as_json()
    return out


def index_run(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    pending = executor.resume_deletes()
    state = executor.search.sync()
    return {
        "indexed": state.tasks_done,
        "errors": state.errors,
        "totalBytes": state.total_bytes,
        "pendingDeletes": pending,
    }


def index_status(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    service = executor.search
    return {"running": service.indexing, **service.progress.as_json()}


HANDLERS = {
    "runtime.tasks.search": search_tasks,
    "runtime.index.run": index_run,
    "runtime.index.status": index_status,
}
