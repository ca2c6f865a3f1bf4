"""``runtime.tasks.list|transcript`` handlers.

* ``runtime.tasks.list {runtime?, includeArchived?}`` → ``{"tasks": [LocalTask…]}``, after an
  incremental index refresh (RW-028/029).
* ``runtime.tasks.transcript {localTaskId, limit?, beforeCursor?, refresh?}`` →
  ``{"task": LocalTask, **Transcript}`` (RW-062..066, RW-075..080). ``refresh`` (default
  true) checks the file's signature and reads only appended bytes; ``false`` serves the
  cached parse without touching the file. A session whose file is gone is reported with
  ``status: "missing"`` and an empty transcript. Reading never changes ``updatedAt``.
"""

from __future__ import annotations

from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import Handler
from hangar.protocol import methods as m
from hangar.protocol.tasks import ListTasks, TaskList, TranscriptPage, TranscriptRequest


def list_tasks(executor: ExecutorCore, request: ListTasks) -> TaskList:
    tasks = executor.list_tasks(runtime=request.runtime, include_archived=request.include_archived)
    return TaskList(tasks=tasks)


def transcript(executor: ExecutorCore, request: TranscriptRequest) -> TranscriptPage:
    task, page = executor.transcript(
        request.local_task_id,
        limit=request.limit,
        before_cursor=request.before_cursor,
        refresh=request.refresh,
    )
    return TranscriptPage(
        messages=page.messages,
        total_messages=page.total_messages,
        has_more=page.has_more,
        before_cursor=page.before_cursor,
        checklist=page.checklist,
        context_usage=page.context_usage,
        task=task,
    )


HANDLERS: dict[str, Handler] = {
    m.TASKS_LIST.name: list_tasks,
    m.TASKS_TRANSCRIPT.name: transcript,
}
