"""``runtime.tasks.*`` handlers.

* ``runtime.tasks.list {runtime?, includeArchived?, ifRevision?}`` → ``{"tasks": [LocalTask…],
  "revision": N}``, after an incremental index refresh (RW-028/029). ``revision`` moves with
  every change to the list; a caller that passes the revision it holds as ``ifRevision`` gets
  ``{"revision": N, "unchanged": true}`` (no tasks) while the list is still the same.
* ``runtime.tasks.transcript {localTaskId, limit?, beforeCursor?, refresh?}`` →
  ``{"task": LocalTask, **Transcript}`` (RW-062..066, RW-075..080). ``refresh`` (default
  true) checks the file's signature and reads only appended bytes; ``false`` serves the
  cached parse without touching the file. A session whose file is gone is reported with
  ``status: "missing"`` and an empty transcript. Reading never changes ``updatedAt``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import field, required
from hangar.model import Transcript
from hangar.transcripts.paging import DEFAULT_LIMIT


def list_tasks(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    runtime = field(payload, "runtime", str)
    include_archived = field(payload, "includeArchived", bool, False)
    known = field(payload, "ifRevision", int)
    revision, tasks = executor.listed(runtime=runtime, include_archived=bool(include_archived))
    if known is not None and known == revision:
        return {"revision": revision, "unchanged": True}
    return {"tasks": tasks, "revision": revision}


def transcript(executor: ExecutorCore, payload: dict[str, Any]) -> dict[str, Any]:
    local_task_id = required(payload, "localTaskId", str)
    limit = field(payload, "limit", int, DEFAULT_LIMIT)
    before = field(payload, "beforeCursor", str)
    refresh = field(payload, "refresh", bool, True)
    task, page = executor.transcript(
        local_task_id, limit=limit or DEFAULT_LIMIT, before_cursor=before, refresh=bool(refresh)
    )
    out: dict[str, Any] = {"task": msgspec.to_builtins(task)}
    out.update(msgspec.to_builtins(page))
    return out


HANDLERS = {
    "runtime.tasks.list": list_tasks,
    "runtime.tasks.transcript": transcript,
}

__all__ = ["HANDLERS", "Transcript"]
