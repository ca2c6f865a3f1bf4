"""Continuing tasks: ``runtime.tasks.send|cancel|guidance|compact|goal.get|models|activity|
approval.answer`` and ``runtime.agents.config.update`` (DESIGN §5, RW-102..156).

A task is located only by ``localTaskId`` on its device (RW-129, RW-134); the workspace is never
part of a request or an answer. ``model`` is the selection of this one turn (RW-119); a send
without one is answered ``bad_request`` by the executor (RW-121), so the field is optional here
and checked there. ``attachments`` are records the executor can fetch (``attachmentId``, from the
hub's uploads) or, from a client on the same device, read (``localPath``); the hub never passes a
path it was given (RW-156, RW-284).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from hangar.protocol.codec import Wire
from hangar.protocol.tasks import Id, TaskRef

Text = Annotated[str, msgspec.Meta(max_length=100_000)]
GuidanceText = Annotated[str, msgspec.Meta(min_length=1, max_length=100_000)]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=255)]
MimeType = Annotated[str, msgspec.Meta(min_length=3, max_length=100)]
ShortText = Annotated[str, msgspec.Meta(max_length=200)]
MAX_ATTACHMENTS = 10

EnvName = Annotated[str, msgspec.Meta(pattern="^[A-Za-z_][A-Za-z0-9_]*$", max_length=100)]
Decision = Literal["approve", "approve_for_session", "deny"]
TurnKind = Literal["reply", "compaction"]
TurnState = Literal["running", "completed", "failed", "interrupted"]


class ModelSelection(Wire):
    """The model picked for this turn: ``modelId`` as the agent lists it, ``modelType`` (the
    agent, or OpenCode's provider id) and options such as ``{"effort": "high"}``."""

    model_id: ShortText = ""
    model_type: ShortText | None = None
    options: dict[ShortText, ShortText] = msgspec.field(default_factory=dict)


class TurnAttachment(Wire):
    name: Name
    mime_type: MimeType
    size: Annotated[int, msgspec.Meta(ge=0)]
    attachment_id: Id | None = None
    sha256: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")] | None = None
    local_path: Annotated[str, msgspec.Meta(max_length=4096)] | None = None


MAX_REFERENCES = 32


class MessageReference(Wire):
    """A rich-text reference the user put in a message (a skill or plugin tag): the token as
    it appears in the text and its target. Kept by ``clientUserMessageId`` (RW-231)."""

    token: Annotated[str, msgspec.Meta(min_length=2, max_length=200)]
    href: Annotated[str, msgspec.Meta(min_length=1, max_length=500)]


class SendRequest(TaskRef):
    text: Text = ""
    model: ModelSelection | None = None
    attachments: Annotated[list[TurnAttachment], msgspec.Meta(max_length=MAX_ATTACHMENTS)] = (
        msgspec.field(default_factory=list)
    )
    client_user_message_id: Id | None = None
    retry_of: Id | None = None
    """The ``subtaskId`` of a failed turn: send that turn's own input again (RW-116)."""
    references: Annotated[list[MessageReference], msgspec.Meta(max_length=MAX_REFERENCES)] = (
        msgspec.field(default_factory=list)
    )
    """Skill and plugin tags in ``text``; kept only with a ``clientUserMessageId`` (RW-234)."""


class TurnAccepted(Wire, omit_defaults=False):
    local_task_id: str
    task_id: str
    subtask_id: str
    kind: TurnKind = "reply"
    status: TurnState = "running"


class CancelResult(Wire, omit_defaults=False):
    local_task_id: str
    accepted: bool
    """``false``: no turn this executor runs for the task (RW-128); the UI keeps its queue."""


class GuidanceRequest(TaskRef):
    text: GuidanceText
    client_guidance_id: Id


class GuidanceResult(Wire, omit_defaults=False):
    local_task_id: str
    client_guidance_id: str
    outcome: Literal["accepted", "no_active_turn"]


class GoalResult(Wire, omit_defaults=False):
    local_task_id: str
    goal: dict[str, Any] | None = None


class ModelInfo(Wire, omit_defaults=False):
    id: str
    display_name: str
    model_type: str
    is_default: bool = False
    efforts: list[str] = msgspec.field(default_factory=list)


class ModelList(Wire, omit_defaults=False):
    local_task_id: str
    runtime: str
    models: list[ModelInfo]
    operations: list[str]
    """What hangar can do with this task's agent (``send``, ``guidance``, ``compact`` …)."""


class ActivityRequest(Wire):
    local_task_id: Id | None = None


class ApprovalInfo(Wire, omit_defaults=False):
    approval_id: str
    local_task_id: str
    task_id: str
    subtask_id: str
    kind: str
    title: str
    detail: str
    reason: str | None
    decisions: list[str]
    requested_at: str


class LiveTurnInfo(Wire, omit_defaults=False):
    local_task_id: str
    task_id: str
    subtask_id: str
    kind: TurnKind
    status: TurnState
    started_at: str
    text: str
    """The reply streamed so far (live only, never persisted, RW-143)."""
    error: str | None = None


class Activity(Wire, omit_defaults=False):
    turns: list[LiveTurnInfo]
    approvals: list[ApprovalInfo]


class ApprovalAnswer(TaskRef):
    approval_id: Id
    decision: Decision


class ApprovalAnswered(Wire, omit_defaults=False):
    local_task_id: str
    approval_id: str
    decision: Decision


class AgentConfigUpdate(Wire):
    """Process-level settings of an agent's resident process (RW-084..088)."""

    runtime: Id
    environment: dict[EnvName, str] = msgspec.field(default_factory=dict)


class AgentConfigUpdated(Wire, omit_defaults=False):
    runtime: str
    environment: list[str]
    """The variable names now set (values are not echoed: a proxy URL may hold a password)."""
