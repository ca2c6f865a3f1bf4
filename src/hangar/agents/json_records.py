"""One JSON object per line (or per document), with what did not decode counted.

Parsers never raise on bad input: a line that is not valid UTF-8, not JSON or not an object
is counted in a :class:`SkipCounter` (``invalid_utf8``, ``invalid_json``, ``not_an_object``)
and skipped; the counts become ``SessionSummary.skipped``.
"""

from __future__ import annotations

import json

from hangar.agents.json_fields import JsonObject


class SkipCounter:
    """Counts records that did not become messages, by record type."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, kind: str, n: int = 1) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + n


def decode_object(line: bytes | str, skipped: SkipCounter) -> JsonObject | None:
    """One JSON object from one line, or ``None`` (counted) when it is anything else; a
    blank line is ``None`` and not counted."""
    if isinstance(line, bytes):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            skipped.add("invalid_utf8")
            return None
    else:
        text = line
    if not text.strip():
        return None
    try:
        value = json.loads(text)
    except ValueError:
        skipped.add("invalid_json")
        return None
    if not isinstance(value, dict):
        skipped.add("not_an_object")
        return None
    return value


def decode_document(data: bytes | str, skipped: SkipCounter) -> JsonObject | None:
    """A whole file (or stored value) that must hold one JSON object, or ``None`` when it
    does not: counted as ``invalid_json`` or ``not_an_object`` (a bare ``null`` is not
    counted)."""
    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        skipped.add("invalid_json")
        return None
    if not isinstance(value, dict):
        if value is not None:
            skipped.add("not_an_object")
        return None
    return value
