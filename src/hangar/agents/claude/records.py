"""Typed views of Claude Code transcript lines, decoded with ``msgspec``.

Only the fields hangar uses are declared; the decoder skips the rest without building
objects. Loosely typed fields are ``Any`` because versions and fixtures disagree on types.
"""

from __future__ import annotations

from typing import Any

import msgspec

RAW_NULL = msgspec.Raw(b"null")


class ApiMessage(msgspec.Struct):
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


class Peek(msgspec.Struct, rename="camel"):
    """What discovery reads from head and tail lines."""

    type: Any = None
    session_id: Any = None
    timestamp: Any = None
    cwd: Any = None
    is_sidechain: Any = False
    is_meta: Any = False
    message: ApiMessage | None = None
    summary: Any = None
    custom_title: Any = None
    ai_title: Any = None
    model: Any = None


LINE = msgspec.json.Decoder(Line)
PEEK = msgspec.json.Decoder(Peek)
ANY = msgspec.json.Decoder()


def raw_value(raw: msgspec.Raw) -> Any:
    try:
        return ANY.decode(raw)
    except msgspec.DecodeError:
        return None


def text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
