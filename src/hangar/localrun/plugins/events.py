"""The NDJSON wire of a provider plugin: events from the adapter, control frames to it.

Every line an adapter writes on its event stream is one JSON object with a ``type``:

- run messages (LR-140, LR-150..LR-171, DESIGN §4): ``text``, ``thinking``, ``user_input``,
  ``final``, ``error`` (``content`` required), ``tool_use`` and ``tool_result`` (``tool``
  required), each with ``source`` and ``source_key`` and optionally ``content``, ``input``
  (an object; ``turnKey``, ``command``, ``commentable``, ``kind`` mean what they mean for the
  built-in providers) and ``output``;
- ``usage``: one increment of token usage for a model, with its own ``source_key``;
- ``session``: the CLI's own session id (the run's log records it; a discussion is resumed
  by it);
- ``handoff_ready`` (v2 with ``native_plan_handoff``): the user picked the CLI's
  implement-plan action; binding ids only, never plan text (LR-148, LR-149).

Fields a type does not know are ignored (forward compatibility; the conformance kit flags
them). Limits: ``source`` ≤ 100 characters, ``source_key`` ≤ 500 and ``tool`` ≤ 200 (what the
hub stores), ``content`` and ``output`` ≤ 1,000,000 (the hub keeps the head and tail of a text
longer than its 64 KiB and marks the message ``truncated``).

Control frames go the other way (adapter stdin, or the fd in ``HANGAR_LOCALRUN_CONTROL_FD``):
``handoff_decision`` carries the ``handoff_id`` it answers and either ``decision: "bound"``
with ``issue_id``, ``issue_key`` and ``run_id`` — nothing else — or ``decision:
"cancelled"``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from hangar.model.run_messages import (
    MAX_COUNT,
    MAX_SOURCE_CHARS,
    MAX_SOURCE_KEY_CHARS,
    MAX_TOOL_CHARS,
    MessageType,
    RunMessage,
    UsageEntry,
)

MAX_EVENT_TEXT = 1_000_000
"""``content``/``output`` of one event; the hub keeps the head and tail of anything longer than
its own limit (``MAX_TEXT_CHARS``) and marks the message ``truncated``."""

Source = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_SOURCE_CHARS)]
SourceKey = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_SOURCE_KEY_CHARS)]
ToolName = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_TOOL_CHARS)]
Content = Annotated[str, msgspec.Meta(max_length=MAX_EVENT_TEXT)]
RequiredContent = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_EVENT_TEXT)]
Tokens = Annotated[int, msgspec.Meta(ge=0, le=MAX_COUNT)]
Identifier = Annotated[str, msgspec.Meta(min_length=1, max_length=500)]


class _Event(msgspec.Struct, tag_field="type", frozen=True):
    """Base of every event (tagged by ``type``)."""

    @property
    def type(self) -> str:
        return str(self.__struct_config__.tag)


class _MessageEvent(_Event, frozen=True):
    source: Source
    source_key: SourceKey

    def to_message(self) -> RunMessage:
        """The run message this event stands for; every tagged subclass defines it (msgspec
        structs cannot be abstract base classes, so the base only refuses)."""
        raise NotImplementedError(f"{type(self).__name__} defines no run message")


class _ContentEvent(_MessageEvent, frozen=True):
    content: RequiredContent
    input: dict[str, Any] = msgspec.field(default_factory=dict)

    def to_message(self) -> RunMessage:
        kind: MessageType = self.type  # type: ignore[assignment]
        return RunMessage(kind, self.source, self.source_key, self.content, input=self.input)


class TextEvent(_ContentEvent, tag="text", frozen=True):
    """The agent's user-facing text (LR-152)."""


class ThinkingEvent(_ContentEvent, tag="thinking", frozen=True):
    """The agent's reasoning, where its CLI shows it (LR-153)."""


class UserInputEvent(_ContentEvent, tag="user_input", frozen=True):
    """What the user typed (not injected context, not a bare slash command, LR-163/LR-164)."""


class FinalEvent(_ContentEvent, tag="final", frozen=True):
    """The turn's final reply, only for a turn with commentable input (LR-167, LR-170)."""


class ErrorEvent(_ContentEvent, tag="error", frozen=True):
    """An error the agent's CLI shows as part of the conversation (LR-156)."""


class ToolUseEvent(_MessageEvent, tag="tool_use", frozen=True):
    """A tool starting (LR-154)."""

    tool: ToolName
    input: dict[str, Any] = msgspec.field(default_factory=dict)
    content: Content = ""

    def to_message(self) -> RunMessage:
        return RunMessage(
            "tool_use", self.source, self.source_key, self.content, self.tool, self.input
        )


class ToolResultEvent(_MessageEvent, tag="tool_result", frozen=True):
    """A tool's result (LR-155)."""

    tool: ToolName
    output: Content | None = None
    input: dict[str, Any] = msgspec.field(default_factory=dict)
    content: Content = ""

    def to_message(self) -> RunMessage:
        return RunMessage(
            "tool_result",
            self.source,
            self.source_key,
            self.content,
            self.tool,
            self.input,
            self.output,
        )


class UsageEvent(_Event, tag="usage", frozen=True):
    """One increment of token usage (added to the run's totals once per ``source_key``)."""

    source_key: SourceKey
    model: Annotated[str, msgspec.Meta(max_length=200)]
    input_tokens: Tokens = 0
    output_tokens: Tokens = 0
    cache_read_tokens: Tokens = 0
    cache_write_tokens: Tokens = 0
    provider: Annotated[str, msgspec.Meta(min_length=1, max_length=100)] | None = None

    def to_usage(self, default_provider: str) -> UsageEntry:
        return UsageEntry(
            self.provider or default_provider,
            self.model,
            self.input_tokens,
            self.output_tokens,
            self.cache_read_tokens,
            self.cache_write_tokens,
        )


class SessionEvent(_Event, tag="session", frozen=True):
    """The CLI's own session id (again after a resume or a new session)."""

    session_id: Identifier


class HandoffReadyEvent(_Event, tag="handoff_ready", frozen=True):
    """v2: the user chose the CLI's implement-plan action; hangar binds, then answers."""

    handoff_id: Identifier
    plan_source_key: SourceKey | None = None
    """The ``source_key`` of the event that holds the plan (hangar has its text already)."""
    context: Literal["current", "clear"] | None = None
    """Whether the CLI continues in its current context or clears it first."""


Event = (
    TextEvent
    | ThinkingEvent
    | UserInputEvent
    | FinalEvent
    | ErrorEvent
    | ToolUseEvent
    | ToolResultEvent
    | UsageEvent
    | SessionEvent
    | HandoffReadyEvent
)
MessageEvent = (
    TextEvent
    | ThinkingEvent
    | UserInputEvent
    | FinalEvent
    | ErrorEvent
    | ToolUseEvent
    | ToolResultEvent
)
EVENT_TYPES = (
    "text",
    "thinking",
    "user_input",
    "final",
    "error",
    "tool_use",
    "tool_result",
    "usage",
    "session",
    "handoff_ready",
)

_decoder = msgspec.json.Decoder(Event)


class InvalidEvent(ValueError):
    """A line that is not a valid event; the message says why, for the run's log."""


def decode_event(line: bytes) -> Event:
    """Decode one NDJSON line; :class:`InvalidEvent` (with a readable reason) otherwise."""
    try:
        return _decoder.decode(line)
    except msgspec.ValidationError as exc:
        text = str(exc)
        if "`$.type`" in text and text.startswith("Invalid value"):
            text += f" (known types: {', '.join(EVENT_TYPES)})"
        raise InvalidEvent(text) from None
    except msgspec.DecodeError as exc:
        raise InvalidEvent(f"not JSON: {exc}") from None


def unknown_fields(line: bytes, event: Event) -> list[str]:
    """Top-level fields of ``line`` that ``event``'s type does not define (kit checks)."""
    raw = msgspec.json.decode(line)
    known = {"type", *event.__struct_fields__}
    return sorted(set(raw) - known) if isinstance(raw, dict) else []


class HandoffDecision(msgspec.Struct, tag="handoff_decision", tag_field="type", frozen=True,
                      omit_defaults=True):  # fmt: skip
    """hangar's answer to ``handoff_ready``: binding ids only (LR-067, LR-068, LR-149)."""

    handoff_id: str
    decision: Literal["bound", "cancelled"]
    issue_id: str | None = None
    issue_key: str | None = None
    run_id: str | None = None

    def encode(self) -> bytes:
        return msgspec.json.encode(self) + b"\n"


ControlFrame = HandoffDecision
_control_decoder = msgspec.json.Decoder(ControlFrame)


def decode_control(line: bytes) -> ControlFrame:
    """Decode a control frame (used by the conformance kit and by Python adapters)."""
    return _control_decoder.decode(line)


def event_schema() -> dict[str, Any]:
    """JSON Schema of one event line (published in ``docs/provider-plugins.md``)."""
    schema: dict[str, Any] = msgspec.json.schema(Event)
    return schema


def control_schema() -> dict[str, Any]:
    """JSON Schema of one control frame."""
    schema: dict[str, Any] = msgspec.json.schema(ControlFrame)
    return schema
