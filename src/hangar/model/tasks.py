"""LocalTask and Transcript, the shapes the executor RPCs return (DESIGN §4)."""

from __future__ import annotations

from typing import Literal

import msgspec

from hangar.model.checklist import Checklist
from hangar.model.messages import Message

WorkspaceKind = Literal["workspace", "worktree", "chat"]
TaskStatus = Literal["running", "done", "failed", "cancelled", "missing"]


class LocalTask(msgspec.Struct, rename="camel"):
    """One agent session on one device.

    Every field is always present in JSON (``null`` when unknown). Identity is ``deviceId`` +
    ``localTaskId``; ``runtimeHandle`` is opaque outside the agent
    module that made it. ``updatedAt`` moves only when content or lifecycle changes.
    """

    device_id: str
    local_task_id: str
    runtime: str
    runtime_handle: dict[str, str]
    title: str
    workspace_path: str
    group_workspace_path: str
    workspace_kind: WorkspaceKind
    created_at: str
    updated_at: str
    archived: bool = False
    status: TaskStatus = "done"
    message_count: int = 0
    worktree_id: str | None = None
    model: str | None = None
    session_id: str | None = None
    """The agent's own id of the session (what its resume command takes)."""
    resume_command: str | None = None
    """The shell line that continues the session in the agent's own CLI, where it has one."""


class ContextUsage(msgspec.Struct, rename="camel", omit_defaults=True):
    total_tokens: int = 0
    last_tokens: int = 0
    model_context_window: int | None = None


class EarlierChecklist(msgspec.Struct, rename="camel", omit_defaults=True):
    """The last list an earlier turn wrote, offered when the latest turn wrote none: shown as
    "from turn N", never as the current list (which is the latest turn's own)."""

    checklist: Checklist
    message_index: int
    turn_number: int | None = None
    """1-based, when the whole transcript is loaded (a tail read does not know it)."""


class Transcript(msgspec.Struct, rename="camel", omit_defaults=True):
    messages: list[Message]
    total_messages: int
    has_more: bool
    before_cursor: str | None = None
    checklist: Checklist | None = None
    context_usage: ContextUsage | None = None
    earlier_checklist: EarlierChecklist | None = None
    around_index: int | None = None
    """The index of the user message an ``aroundClientUserMessageId`` request asked for."""
    settled: bool = True
    """False for a first look at a file the device has not read yet (``runtime.tasks.glance``):
    its last turns from the file's end, ``index`` counted from the first of them and
    ``totalMessages`` only theirs. The exact page (a ``runtime.tasks.transcript``) replaces
    it."""
