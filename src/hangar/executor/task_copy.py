"""Copying a task on this device (RW-297..300, RW-318).

The copy is made by the agent itself: its control's ``fork`` with the chosen completed turn as
the history's end (Codex ``thread/fork {threadId, lastTurnId}``). The turn must be one of the
source's turns whose replies are all final — a turn still streaming, failed or unknown is
refused before the agent is asked. A fork is a read of the source: it never goes through the
source's live turn, so a turn the source is running goes on untouched (RW-300). The new
session is registered under the client's ``localTaskId`` and linked at once, so it lists as
its own task of this device (RW-318) in the source's directory, named by the agent's own
rename as "<source title> (copy)".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hangar.agents.control import ForkedSession
from hangar.errors import NotFoundError, UsageError
from hangar.executor.trash import now_iso
from hangar.protocol.copy import CopyTask, TaskCopied

if TYPE_CHECKING:
    from pathlib import Path

    from hangar.executor.core import ExecutorCore

COPY_SUFFIX = " (copy)"


def copy_name(title: str) -> str:
    """ "<source title> (copy)", within the 80 characters of a title."""
    return (title or "Untitled")[: 80 - len(COPY_SUFFIX)] + COPY_SUFFIX


class TaskCopier:
    def __init__(self, core: ExecutorCore) -> None:
        self.core = core

    def check_turn(self, local_task_id: str, last_turn_id: str) -> None:
        """Refuse a turn that is not a completed turn of the task (RW-298)."""
        _, messages = self.core.messages(local_task_id)
        replies = [m for m in messages if m.turn_id == last_turn_id]
        if not replies:
            raise NotFoundError(kind="turn", key=last_turn_id)
        unfinished = [m.status for m in replies if m.role == "assistant" and m.status != "done"]
        if unfinished or not any(m.role == "assistant" for m in replies):
            state = unfinished[0] if unfinished else "without a reply"
            raise UsageError(f"turn {last_turn_id} is {state}: a copy ends with a completed turn")

    def fork(
        self, local_task_id: str, last_turn_id: str, cwd: Path | None, title: str | None = None
    ) -> ForkedSession:
        """The agent's fork of the task through ``last_turn_id`` (checked first)."""
        turns = self.core.turns
        target = turns.target(local_task_id)
        control = turns.control(target, "fork")
        self.check_turn(local_task_id, last_turn_id)
        return control.fork(target.handle, last_turn_id, cwd, title)

    def copy(self, request: CopyTask) -> TaskCopied:
        new_id = request.new_local_task_id
        if self.core.index.knows(new_id):
            raise UsageError(f"task id {new_id} is taken; generate a new one")
        source = self.core.index.get(request.local_task_id)
        name = copy_name(source.title)
        forked = self.fork(request.local_task_id, request.last_turn_id, None, name)
        self.register(new_id, source.runtime, source.workspace_path, name, forked)
        return TaskCopied(
            local_task_id=new_id,
            source_local_task_id=request.local_task_id,
            runtime=source.runtime,
            workspace_path=source.workspace_path,
            last_turn_id=request.last_turn_id,
        )

    def register(
        self, new_id: str, runtime: str, workspace: str, name: str, forked: ForkedSession
    ) -> None:
        """The fork as task ``new_id`` named ``name`` (a row the index made for it meanwhile
        is folded in)."""
        index = self.core.index
        index.register_created(new_id, runtime, workspace, name, now_iso(), status="done")
        key = forked.handle.get("threadId") or forked.handle.get("sessionId") or ""
        index.link_session(new_id, key, forked.handle)
        control = self.core.control(runtime)
        if control is not None:
            control.rename(forked.handle, name)  # the agent's own name for its new session
        self.core.refresh_index(force=True)
