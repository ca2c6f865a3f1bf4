"""``runtime.tasks.run_messages {localTaskId, fromIndex?, limit?}`` →
:class:`~hangar.protocol.run_log.RunMessagesPage`: the task's transcript from ``fromIndex`` on
as local-run messages (:mod:`hangar.executor.run_log`), for adopting a session into an issue.

The transcript is read through the executor's engine (a stat when nothing changed, the
appended bytes when the file grew); the mapping is a pure function of the messages, so the
same part of a session always yields the same source keys.
"""

from __future__ import annotations

from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import Handler
from hangar.executor.run_log import run_log
from hangar.protocol import methods as m
from hangar.protocol.run_log import RunMessagesPage, RunMessagesRequest


def run_messages(executor: ExecutorCore, request: RunMessagesRequest) -> RunMessagesPage:
    local_task_id = request.local_task_id
    session_id = str(executor.index.row(local_task_id)["session_key"])
    task, messages = executor.messages(local_task_id)
    page = run_log(
        task.runtime, session_id, messages, from_index=request.from_index, limit=request.limit
    )
    first = None
    if request.from_index == 0:
        first = next((m.content for m in messages if m.role == "user" and m.content), None)
    return RunMessagesPage(
        local_task_id=local_task_id,
        task=task,
        messages=page.messages,
        next_index=page.next_index,
        has_more=page.has_more,
        total_messages=len(messages),
        first_request=first,
    )


HANDLERS: dict[str, Handler] = {m.TASKS_RUN_MESSAGES.name: run_messages}
