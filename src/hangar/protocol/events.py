"""Events an executor sends on its own (not answers to a call).

``runtime.changed`` says *that* a device's sessions changed (the hub's pages then ask for the
list: the executor never sends the list itself, RW-042). ``runtime.tasks.updated`` says a
task's last assistant message reached a terminal state with content (RW-329): it carries the
task's identity, ``status`` and ``content`` and never a workspace path (RW-330; an unknown
field such as ``workspacePath`` is refused when the hub decodes it).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from hangar.protocol.codec import MAX_ID_CHARS, Wire

RUNTIME_CHANGED = "runtime.changed"
TASKS_UPDATED = "runtime.tasks.updated"
INDEX_PROGRESS = "index.progress"

TERMINAL = frozenset({"done", "failed", "cancelled"})
"""Message statuses after which a reply no longer changes."""
MAX_CONTENT_CHARS = 20_000

Id = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID_CHARS)]


class TaskUpdated(Wire):
    """``runtime.tasks.updated``: one task's reply is final."""

    local_task_id: Id
    status: Literal["done", "failed", "cancelled", "streaming", "running"]
    content: Annotated[str, msgspec.Meta(max_length=MAX_CONTENT_CHARS)]
    update_key: Id
    """Identity of the reply (its message id): a send started from hangar and the watcher
    that sees the same reply name the same key, so it is notified once (RW-332)."""
    title: str | None = None
    runtime: str | None = None
    updated_at: str | None = None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL and bool(self.content.strip())
