"""Copying tasks (RW-297..318, ``docs/worktrees.md`` "Copying a task").

* ``runtime.tasks.copy {localTaskId, lastTurnId, newLocalTaskId}`` → ``{localTaskId,
  sourceLocalTaskId, runtime, workspacePath, lastTurnId, method: "fork"}``: a new task of this
  device whose history ends with that completed turn. ``not_found`` for an unknown turn,
  ``bad_request`` for one still running (or a taken id), ``not_supported`` for an agent
  without a fork.
"""

from __future__ import annotations

from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import Handler
from hangar.executor.task_copy import TaskCopier
from hangar.protocol import methods as m
from hangar.protocol.copy import CopyTask, TaskCopied


def copy(executor: ExecutorCore, request: CopyTask) -> TaskCopied:
    return TaskCopier(executor).copy(request)


HANDLERS: dict[str, Handler] = {m.TASKS_COPY.name: copy}
