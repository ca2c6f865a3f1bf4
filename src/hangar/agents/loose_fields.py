"""Reading the loosely typed fields of the ``msgspec`` record views (Claude, Codex).

Transcript versions and fixtures disagree on field types, so record views declare such
fields ``Any`` (or ``msgspec.Raw``, decoded on demand) and read them through these helpers,
which answer ``None`` instead of raising.
"""

from __future__ import annotations

from typing import Any

import msgspec

RAW_NULL = msgspec.Raw(b"null")
"""Default for a ``msgspec.Raw`` field the record does not carry."""

_ANY = msgspec.json.Decoder()


def raw_value(raw: msgspec.Raw) -> Any:
    """Decode a ``Raw`` field; invalid content decodes to ``None``."""
    try:
        return _ANY.decode(raw)
    except msgspec.DecodeError:
        return None


def text_or_none(value: Any) -> str | None:
    """``value`` if it is a non-empty string (fixtures and old versions put odd types here)."""
    return value if isinstance(value, str) and value else None
