"""``runtime.tasks.updated``: telling the hub that a task's reply is final (RW-329, RW-330).

After each batch of session changes (the watcher's ``runtime.changed``), :class:`TaskUpdates`
looks at the tasks whose ``updatedAt`` moved since it last looked, reads the last page of each
(tail-first: only the last turns), and when the last message is an assistant reply in a
terminal state (done, failed, cancelled) with content, sends ``runtime.tasks.updated`` with
its status, content and the reply's id as ``updateKey`` — never the workspace path. A reply
is sent at most once per process; a running or streaming reply is never sent. What existed
when it started is the baseline: old replies are never announced.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from hangar.errors import HangarError
from hangar.executor.core import ExecutorCore
from hangar.protocol.codec import to_json
from hangar.protocol.events import MAX_CONTENT_CHARS, RUNTIME_CHANGED, TASKS_UPDATED, TaskUpdated

log = logging.getLogger("hangar.executor.updates")

Publish = Callable[[str, dict[str, Any]], None]
DEBOUNCE = 0.3


class TaskUpdates(threading.Thread):
    """Watches list changes and publishes final replies (see the module docstring)."""

    def __init__(self, executor: ExecutorCore, publish: Publish) -> None:
        super().__init__(name="hangar-task-updates", daemon=True)
        self.executor = executor
        self.publish = publish
        self._seen: dict[str, str] | None = None
        self._sent: dict[str, str] = {}
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self.sent = 0

    def relay(self, event: str, data: dict[str, Any]) -> None:
        """A ``Publish`` that passes every event on and looks for final replies after a
        change (wrap the watcher's publish with it)."""
        self.publish(event, data)
        if event == RUNTIME_CHANGED:
            self._wake.set()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()

    def start(self) -> None:
        """Take the baseline, then start watching. The baseline is taken here, on the caller's
        thread, so that it predates whatever the caller does next (connecting to the hub, so
        that a reply written once the device is online is never mistaken for an old one)."""
        self._seen = self._updated_at()
        super().start()

    def run(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait()
            if self._stopping.wait(DEBOUNCE):
                return
            self._wake.clear()
            try:
                self.check()
            except Exception as exc:  # a worker must never take the executor down
                log.warning("checking task updates failed: %s", exc)

    def check(self) -> list[TaskUpdated]:
        """Publish the final replies of tasks that changed since the last check."""
        now = self._updated_at()
        before = self._seen if self._seen is not None else now
        self._seen = now
        found: list[TaskUpdated] = []
        for local_task_id, updated_at in now.items():
            if before.get(local_task_id) == updated_at:
                continue
            update = self._final_reply(local_task_id)
            if update is None or self._sent.get(local_task_id) == update.update_key:
                continue
            self._sent[local_task_id] = update.update_key
            found.append(update)
            self.sent += 1
            self.publish(TASKS_UPDATED, to_json(update))
        return found

    def _updated_at(self) -> dict[str, str]:
        _, tasks = self.executor.listed(include_archived=False)
        return {t.local_task_id: t.updated_at for t in tasks}

    def _final_reply(self, local_task_id: str) -> TaskUpdated | None:
        try:
            task, page = self.executor.transcript(local_task_id, limit=2)
        except HangarError:
            return None
        if not page.messages:
            return None
        last = page.messages[-1]
        update = TaskUpdated(
            local_task_id=local_task_id,
            status=last.status,
            content=last.content[:MAX_CONTENT_CHARS],
            update_key=last.id or f"{last.turn_id}:{last.index}",
            title=task.title or None,
            runtime=task.runtime,
            updated_at=task.updated_at,
        )
        if last.role != "assistant" or not update.terminal:
            return None
        return update
