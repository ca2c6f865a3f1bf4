"""What the hub does with final replies and ``/notify`` commands.

:meth:`Notifications.task_updated` is called for every ``runtime.tasks.updated`` a device sends
(the hub has already dropped running and streaming ones, RW-331): it queues one delivery per
target that should get the reply and wakes the delivery worker; it never sends anything
itself, so a reply is never held up by a slow or dead notification service.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.engine import Engine

from hangar.hub.notify import store
from hangar.hub.notify.commands import Command
from hangar.hub.notify.commands import reply as command_reply
from hangar.hub.store.workspaces import Workspace
from hangar.protocol.events import TaskUpdated


@dataclass
class Notifications:
    engine: Engine
    workspace: Workspace
    webhook_secret: str = ""
    slack_secret: str = ""
    wake: threading.Event = field(default_factory=threading.Event)
    """Set when deliveries are queued (the worker waits on it)."""

    @property
    def member_id(self) -> str:
        return self.workspace.owner_id

    def task_updated(self, device_id: str, update: TaskUpdated) -> int:
        """Queue the final reply ``update`` of ``device_id``; returns new deliveries."""
        if not update.terminal:
            return 0
        added = store.enqueue(self.engine, self.member_id, device_id, update)
        if added:
            self.wake.set()
        return added

    def set_enabled(self, on: bool) -> dict[str, Any]:
        store.set_enabled(self.engine, self.member_id, on)
        return self.status()

    def status(self) -> dict[str, Any]:
        deliveries = store.deliveries(self.engine, self.member_id)
        return {
            "enabled": store.enabled(self.engine, self.member_id),
            "targets": store.targets(self.engine, self.member_id),
            "subscriptions": store.subscriptions(self.engine, self.member_id),
            "deliveries": deliveries,
            "failing": sum(1 for d in deliveries if d["status"] in ("failed", "retrying")),
        }

    def command(self, command: Command) -> str:
        """Carry out an IM command; returns the answer for the IM session."""
        if command.action in ("on", "off"):
            store.set_enabled(self.engine, self.member_id, command.action == "on")
        state = self.status()
        return command_reply(command, state["enabled"], len(state["targets"]), state["failing"])
