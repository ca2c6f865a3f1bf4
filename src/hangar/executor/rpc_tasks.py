"""``runtime.tasks.list|transcript|glance`` handlers.

* ``runtime.tasks.list {runtime?, includeArchived?, ifRevision?}`` → ``{"tasks": [LocalTask…],
  "revision": N}``, after an incremental index refresh (RW-028/029). ``revision`` moves with
  every change to the list; a caller that passes the revision it holds as ``ifRevision`` gets
  ``{"tasks": [], "revision": N, "unchanged": true}`` while the list is still the same.
* ``runtime.tasks.transcript {localTaskId, limit?, beforeCursor? | aroundClientUserMessageId?,
  refresh?}`` → ``{"task": LocalTask, **Transcript}`` (RW-062..066, RW-075..080). ``refresh``
  (default true) checks the file's signature and reads only appended bytes; ``false`` serves
  the cached parse without touching the file. ``aroundClientUserMessageId`` asks for the page
  around the user message with that id, its index as ``aroundIndex`` (RW-229; not found:
  ``not_found``). A session whose file is gone is reported with ``status: "missing"`` and an
  empty transcript. Reading never changes ``updatedAt``.
* ``runtime.tasks.glance {localTaskId, limit?}`` → the same shape: the exact first page when
  the device knows the file, else its last turns read from the file's end with
  ``settled: false`` (indexes counted from the first of them, no cursor), for a client to
  show while it asks ``runtime.tasks.transcript`` for the exact page.
"""

from __future__ import annotations

from hangar.executor.core import ExecutorCore
from hangar.executor.image_previews import with_previews
from hangar.executor.presentations import with_references
from hangar.executor.projects import registered_projects
from hangar.executor.rpc import Handler
from hangar.model import LocalTask, Transcript
from hangar.protocol import methods as m
from hangar.protocol.tasks import (
    GlanceRequest,
    ListTasks,
    TaskList,
    TranscriptPage,
    TranscriptRequest,
)


def list_tasks(executor: ExecutorCore, request: ListTasks) -> TaskList:
    revision, tasks = executor.listed(
        runtime=request.runtime, include_archived=request.include_archived
    )
    projects = registered_projects(executor.settings.paths.home)
    if request.if_revision is not None and request.if_revision == revision:
        return TaskList(tasks=[], revision=revision, unchanged=True, projects=projects)
    return TaskList(tasks=tasks, revision=revision, projects=projects)


def transcript(executor: ExecutorCore, request: TranscriptRequest) -> TranscriptPage:
    task, page = executor.transcript(
        request.local_task_id,
        limit=request.limit,
        before_cursor=request.before_cursor,
        refresh=request.refresh,
        around_client_user_message_id=request.around_client_user_message_id,
    )
    return _page(executor, request.local_task_id, task, page)


def _page(
    executor: ExecutorCore, local_task_id: str, task: LocalTask, page: Transcript
) -> TranscriptPage:
    messages = with_previews(page.messages, executor.settings.paths.turn_inputs_dir, local_task_id)
    messages = with_references(messages, executor.presentations.for_task(local_task_id))
    return TranscriptPage(
        messages=messages,
        total_messages=page.total_messages,
        has_more=page.has_more,
        before_cursor=page.before_cursor,
        checklist=page.checklist,
        context_usage=page.context_usage,
        earlier_checklist=page.earlier_checklist,
        around_index=page.around_index,
        settled=page.settled,
        task=task,
    )


def glance(executor: ExecutorCore, request: GlanceRequest) -> TranscriptPage:
    task, page = executor.first_look(request.local_task_id, limit=request.limit)
    return _page(executor, request.local_task_id, task, page)


HANDLERS: dict[str, Handler] = {
    m.TASKS_LIST.name: list_tasks,
    m.TASKS_TRANSCRIPT.name: transcript,
    m.TASKS_GLANCE.name: glance,
}
