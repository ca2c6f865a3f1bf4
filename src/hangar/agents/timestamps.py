"""Time formatting shared by the parsers: every time hangar shows is ISO-8601 UTC with ``Z``."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path


def iso_from_seconds(seconds: float) -> str:
    """Epoch seconds as an ISO-8601 UTC string ending in ``Z``."""
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat().replace("+00:00", "Z")


def iso_from_millis(value: object) -> str | None:
    """Epoch milliseconds (OpenCode, Kiro) as an ISO-8601 UTC string; ``None`` for anything
    that is not a number in range."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return iso_from_seconds(value / 1000)
    except (OverflowError, OSError, ValueError):
        return None


def iso_mtime(path: Path) -> str | None:
    """A file's modification time as an ISO-8601 UTC string; ``None`` if it cannot be read."""
    try:
        stamp = path.stat().st_mtime
    except OSError:
        return None
    return iso_from_seconds(stamp)
