"""Typed views of Codex rollout lines, decoded with ``msgspec``.

Only the fields hangar uses are declared; everything else in a record is skipped by the
decoder without building Python objects. Large strings that are often not needed (the
command output an ``exec_command_end`` repeats after the call's own output) are declared
``msgspec.Raw`` and decoded on demand; a function call's output is always shown, so it is
decoded in the same pass as its line (a ``Raw`` would scan it twice).
"""

from __future__ import annotations

from typing import Any

import msgspec

from hangar.agents.json_fields import RAW_NULL


class Envelope(msgspec.Struct):
    """``{"timestamp", "type", "payload"}``; ``role``/``content`` for the oldest loose lines."""

    type: str | None = None
    timestamp: str | None = None
    payload: msgspec.Raw = RAW_NULL
    role: str | None = None
    content: Any = None


class GitInfo(msgspec.Struct):
    commit_hash: str | None = None
    branch: str | None = None
    repository_url: str | None = None


class SessionMeta(msgspec.Struct):
    id: str | None = None
    session_id: str | None = None
    timestamp: str | None = None
    cwd: str | None = None
    originator: str | None = None
    cli_version: str | None = None
    source: Any = None
    model_provider: str | None = None
    parent_thread_id: str | None = None
    forked_from_id: str | None = None
    forked_from_ordinal_exclusive: int | None = None
    """A fork (0.171) stands on its parent's records with a smaller ``ordinal``."""
    git: GitInfo | None = None


class TurnContext(msgspec.Struct):
    turn_id: Any = None
    cwd: str | None = None
    model: str | None = None


class ResponseItem(msgspec.Struct):
    type: str = ""
    id: str | None = None
    role: str | None = None
    content: Any = None
    phase: Any = None
    name: str | None = None
    namespace: str | None = None
    arguments: msgspec.Raw = RAW_NULL
    call_id: Any = None
    output: Any = None
    input: Any = None
    status: Any = None
    action: Any = None
    summary: Any = None
    result: Any = None
    revised_prompt: Any = None


class Compacted(msgspec.Struct):
    message: str | None = None


class TokenUsage(msgspec.Struct):
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    reasoning_output_tokens: int = 0
    total_tokens: int = 0


class TokenInfo(msgspec.Struct):
    """``token_count.info`` (the pre-0.5x ``{prompt, completion}`` shape decodes to empty)."""

    total_token_usage: TokenUsage | None = None
    last_token_usage: TokenUsage | None = None
    model_context_window: int | None = None


class EventMsg(msgspec.Struct):
    type: str = ""
    message: Any = None
    images: Any = None
    local_images: Any = None
    local_images_camel: Any = msgspec.field(default=None, name="localImages")
    client_user_message_id: Any = None
    phase: Any = None
    text: Any = None
    turn_id: Any = None
    model_context_window: Any = None
    last_agent_message: Any = None
    duration_ms: Any = None
    reason: Any = None
    info: TokenInfo | None = None
    usage: Any = None
    call_id: Any = None
    command: Any = None
    exit_code: Any = None
    duration: Any = None
    aggregated_output: msgspec.Raw = RAW_NULL
    stdout: msgspec.Raw = RAW_NULL
    success: Any = None
    changes: Any = None
    invocation: Any = None
    result: Any = None
    item: Any = None
    status: Any = None
    revised_prompt: Any = None
    path: Any = None
    error: Any = None
    new_thread_id: Any = None
    new_agent_nickname: Any = None
    receiver_thread_id: Any = None
    agent_statuses: Any = None
    prompt: Any = None


class _TypedLine(msgspec.Struct, tag_field="type", kw_only=True):
    timestamp: str | None = None


class ResponseItemLine(_TypedLine, tag="response_item"):
    payload: ResponseItem


class EventLine(_TypedLine, tag="event_msg"):
    payload: EventMsg


class SessionMetaLine(_TypedLine, tag="session_meta"):
    payload: SessionMeta


class TurnContextLine(_TypedLine, tag="turn_context"):
    payload: TurnContext


class CompactedLine(_TypedLine, tag="compacted"):
    payload: Compacted


TypedLine = ResponseItemLine | EventLine | SessionMetaLine | TurnContextLine | CompactedLine

#: One pass over the line for the common record types; anything else (unknown types, odd
#: shapes) fails validation and is classified again through :data:`ENVELOPE`.
TYPED_LINE = msgspec.json.Decoder(TypedLine)
ENVELOPE = msgspec.json.Decoder(Envelope)
SESSION_META = msgspec.json.Decoder(SessionMeta)
TURN_CONTEXT = msgspec.json.Decoder(TurnContext)
RESPONSE_ITEM = msgspec.json.Decoder(ResponseItem)
COMPACTED = msgspec.json.Decoder(Compacted)
EVENT_MSG = msgspec.json.Decoder(EventMsg)
