"""Tolerant reading of decoded JSON fields, for every agent's parser.

Transcript versions and fixtures disagree on field types, so parsers read fields through
these helpers, which answer an empty or ``None`` value instead of raising. The ``msgspec``
record views (Claude, Codex) declare such fields ``Any`` or ``msgspec.Raw`` (decoded on
demand with :func:`raw_value`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import msgspec

JsonObject = dict[str, Any]

RAW_NULL = msgspec.Raw(b"null")
"""Default for a ``msgspec.Raw`` field the record does not carry."""

_ANY = msgspec.json.Decoder()


def as_map(value: object) -> Mapping[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def as_str(value: object) -> str | None:
    """``value`` when it is a string (empty included), else ``None``."""
    return value if isinstance(value, str) else None


def text_or_none(value: Any) -> str | None:
    """``value`` if it is a non-empty string, else ``None``."""
    return value if isinstance(value, str) and value else None


def as_int(value: object) -> int:
    """``value`` when it is an integer (not a boolean), else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def raw_value(raw: msgspec.Raw) -> Any:
    """Decode a ``Raw`` field; invalid content decodes to ``None``."""
    try:
        return _ANY.decode(raw)
    except msgspec.DecodeError:
        return None


def decoded_arguments(raw: object) -> Any:
    """Tool-call arguments: a JSON string decoded (kept as text if it is not JSON), any
    other value as it is."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw
