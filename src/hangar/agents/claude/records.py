"""Typed views of Claude Code transcript lines, decoded with ``msgspec``.

Only the fields hangar uses are declared; the decoder skips the rest without building
objects. Loosely typed fields are ``Any`` because versions and fixtures disagree on types.
"""

from __future__ import annotations

from typing import Any

import msgspec

from hangar.agents.json_fields import RAW_NULL


class ContentBlock(msgspec.Struct):
    """One content block of a message (text, thinking, tool_use, tool_result, image…)."""

    type: Any = None
    text: Any = None
    thinking: Any = None
    data: Any = None
    id: Any = None
    name: Any = None
    input: Any = None
    tool_use_id: Any = None
    content: Any = None
    is_error: Any = None
    source: Any = None


class TokenUsage(msgspec.Struct):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0


class ApiMessage(msgspec.Struct):
    """The typed fast path: any other shape falls back to :class:`LooseApiMessage`."""

    id: Any = None
    role: Any = None
    model: Any = None
    content: str | list[ContentBlock] | None = None
    stop_reason: Any = None
    usage: TokenUsage | None = None


class LooseApiMessage(msgspec.Struct):
    id: Any = None
    role: Any = None
    model: Any = None
    content: Any = None
    stop_reason: Any = None
    usage: Any = None


class Line(msgspec.Struct, rename="camel"):
    type: Any = None
    uuid: Any = None
    session_id: Any = None
    timestamp: Any = None
    cwd: Any = None
    git_branch: Any = None
    version: Any = None
    is_sidechain: Any = False
    is_meta: Any = False
    is_compact_summary: Any = False
    is_api_error_message: Any = False
    agent_id: Any = None
    subtype: Any = None
    content: Any = None
    message: ApiMessage | None = None
    tool_use_result: msgspec.Raw = RAW_NULL
    summary: Any = None
    custom_title: Any = None
    ai_title: Any = None
    duration_ms: Any = None


class LooseLine(Line, rename="camel"):
    """A line whose ``message`` does not fit the typed shape; normalized by :func:`decode_line`."""

    message: Any = None


class Peek(msgspec.Struct, rename="camel"):
    # ``message`` stays loose here: discovery reads few lines and must accept any shape.
    """What discovery reads from head and tail lines."""

    type: Any = None
    session_id: Any = None
    timestamp: Any = None
    cwd: Any = None
    is_sidechain: Any = False
    is_meta: Any = False
    message: LooseApiMessage | None = None
    summary: Any = None
    custom_title: Any = None
    ai_title: Any = None
    model: Any = None


class ToolUseResult(msgspec.Struct, rename="camel"):
    """The parts of ``toolUseResult`` hangar uses (its big copies of output are skipped)."""

    agent_id: Any = None
    total_duration_ms: Any = None


_TOOL_USE_RESULT = msgspec.json.Decoder(ToolUseResult)


def tool_use_result(raw: msgspec.Raw) -> ToolUseResult | None:
    """``toolUseResult`` when it is an object, else ``None``."""
    if not raw or bytes(memoryview(raw)[:1]) != b"{":
        return None
    try:
        return _TOOL_USE_RESULT.decode(raw)
    except msgspec.DecodeError:
        return None


LINE = msgspec.json.Decoder(Line)
LOOSE_LINE = msgspec.json.Decoder(LooseLine)
PEEK = msgspec.json.Decoder(Peek)


def normalize_blocks(content: Any) -> str | list[ContentBlock] | None:
    if content is None or isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    blocks: list[ContentBlock] = []
    for item in content:
        if isinstance(item, str):
            blocks.append(ContentBlock(type="text", text=item))
        elif isinstance(item, dict):
            try:
                blocks.append(msgspec.convert(item, ContentBlock, strict=False))
            except msgspec.ValidationError:
                continue
    return blocks


def _message(raw: Any) -> ApiMessage | None:
    if not isinstance(raw, dict):
        return None
    usage = raw.get("usage")
    try:
        tokens = msgspec.convert(usage, TokenUsage, strict=False) if usage else None
    except msgspec.ValidationError:
        tokens = None
    return ApiMessage(
        id=raw.get("id"),
        role=raw.get("role"),
        model=raw.get("model"),
        content=normalize_blocks(raw.get("content")),
        stop_reason=raw.get("stop_reason"),
        usage=tokens,
    )


def decode_line(line: bytes) -> Line:
    """Decode one line: typed fast path, then a loose pass that normalizes odd shapes.

    Raises ``msgspec.DecodeError`` for invalid JSON and ``msgspec.ValidationError`` for a
    line that is not a JSON object.
    """
    try:
        return LINE.decode(line)
    except msgspec.ValidationError:
        loose = LOOSE_LINE.decode(line)
    fields = {f: getattr(loose, f) for f in Line.__struct_fields__ if f != "message"}
    return Line(**fields, message=_message(loose.message))
