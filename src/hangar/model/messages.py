"""Normalized transcript messages and their blocks (DESIGN §4).

A :class:`Message` is either the user's visible request (``content`` without injected
context) or one assistant reply with ordered ``blocks``. ``index`` is the message's position
in the full transcript and never changes once assigned, so pages and cursors stay stable.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from hangar.model.checklist import ChecklistItem

Role = Literal["user", "assistant"]
MessageStatus = Literal["done", "streaming", "failed", "cancelled"]
ToolStatus = Literal["running", "done", "failed", "cancelled"]


class _Block(msgspec.Struct, rename="camel", omit_defaults=True, tag_field="type"):
    pass


class TextBlock(_Block, tag="text"):
    text: str


class ThinkingBlock(_Block, tag="thinking"):
    text: str
    redacted: bool = False


class ToolBlock(_Block, tag="tool"):
    """One tool call and its result.

    ``input`` is the tool's arguments as the agent recorded them (parsed JSON where the agent
    stored a JSON string). ``output`` is the result text; ``truncated`` is true when hangar
    shortened it for display (the full text stays in the agent's own file). ``children``
    holds the messages of a sub-agent this call started, when the agent records them.
    """

    tool_use_id: str
    name: str
    input: Any = None
    output: str | None = None
    status: ToolStatus = "done"
    is_error: bool = False
    truncated: bool = False
    duration_ms: int | None = None
    kind: str | None = None
    """A coarse category for display: ``shell``, ``patch``, ``edit``, ``read``, ``search``,
    ``web``, ``mcp``, ``subagent``, ``plan`` or ``None``."""
    children: list[Message] | None = None


class PlanBlock(_Block, tag="plan"):
    """A proposed plan as text (a plan-mode proposal, not the todo list)."""

    text: str


class ChecklistBlock(_Block, tag="checklist"):
    """A checklist update committed by this message (see :mod:`hangar.model.checklist`)."""

    source: str
    items: list[ChecklistItem]


class FileChange(msgspec.Struct, rename="camel", omit_defaults=True):
    path: str
    change_type: Literal["add", "delete", "update", "move"] = "update"
    additions: int = 0
    deletions: int = 0
    move_path: str | None = None
    diff: str | None = None


class FileChangesBlock(_Block, tag="fileChanges"):
    files: list[FileChange]
    tool_use_id: str | None = None
    success: bool | None = None


class ImageBlock(_Block, tag="image"):
    """An image: a local ``path`` or an inline ``renderPayload`` (a data: URL)."""

    path: str | None = None
    render_payload: str | None = None
    mime_type: str | None = None
    prompt: str | None = None


class CompactionBlock(_Block, tag="compaction"):
    text: str | None = None
    automatic: bool = True


class UnknownBlock(_Block, tag="raw"):
    """A record hangar does not understand but a user would want to see, kept raw."""

    record_type: str
    raw: Any = None


Block = (
    TextBlock
    | ThinkingBlock
    | ToolBlock
    | PlanBlock
    | ChecklistBlock
    | FileChangesBlock
    | ImageBlock
    | CompactionBlock
    | UnknownBlock
)


class Usage(msgspec.Struct, rename="camel", omit_defaults=True):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0


class Attachment(msgspec.Struct, rename="camel", omit_defaults=True):
    """A file that came with a user message.

    ``path`` is where the agent's record says the file was; ``attachment_id`` names a file
    uploaded to the hub (a persisted attachment, served by the hub); ``local_preview_url`` is
    a ``data:image/…`` URL made on this device only for rendering the transcript (never
    uploaded or synced), with ``status`` ``ready`` once it exists (RW-218..223).
    """

    name: str
    path: str | None = None
    mime_type: str | None = None
    attachment_id: str | None = None
    status: str | None = None
    local_preview_url: str | None = None


class PresentationReference(msgspec.Struct, rename="camel", omit_defaults=True):
    """A rich-text reference (a skill or plugin tag) inside a user message's ``content``:
    ``start``/``end`` are UTF-16 offsets (as a browser counts), ``href`` its target
    (RW-233). Only the position and target: the text stays the agent's own."""

    start: int
    end: int
    href: str


class Message(msgspec.Struct, rename="camel", omit_defaults=True):
    index: int
    id: str
    role: Role
    turn_id: str
    created_at: str | None = None
    completed_at: str | None = None
    status: MessageStatus = "done"
    content: str = ""
    client_user_message_id: str | None = None
    attachments: list[Attachment] | None = None
    presentation_references: list[PresentationReference] | None = None
    blocks: list[Block] | None = None
    usage: Usage | None = None
    model: str | None = None
    error: str | None = None
