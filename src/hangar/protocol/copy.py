"""Copying a task (RW-297..318): ``runtime.tasks.copy``.

The client picks a completed turn of the source task (a message action) and names the copy's
``localTaskId`` itself, as for a new task. The copy is a new task of the same device, made by
the agent's own fork bounded by that turn (Codex ``thread/fork`` with ``lastTurnId``); the
copy's identity is this device's ``deviceId`` and the new ``localTaskId`` (RW-318), its
``workspacePath`` only where it works.
"""

from __future__ import annotations

from typing import Literal

from hangar.protocol.codec import Wire
from hangar.protocol.create import LocalTaskId
from hangar.protocol.tasks import Id


class CopyTask(Wire):
    local_task_id: Id
    """The source task."""
    last_turn_id: Id
    """The completed turn the copy's history ends with (inclusive, RW-298)."""
    new_local_task_id: LocalTaskId
    """The copy's id, chosen by the client (refused when this device knows it)."""


class TaskCopied(Wire, omit_defaults=False):
    local_task_id: str
    """The copy."""
    source_local_task_id: str
    runtime: str
    workspace_path: str
    last_turn_id: str
    method: Literal["fork"] = "fork"
