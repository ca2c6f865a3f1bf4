"""Paths as a person reads them: relative to the task's directory when inside it."""

from __future__ import annotations

from pathlib import PurePosixPath


def short_path(path: str, cwd: str | None) -> str:
    """``path`` relative to ``cwd`` when it lies inside it, else as given."""
    if not cwd or not path.startswith("/"):
        return path
    try:
        relative = PurePosixPath(path).relative_to(PurePosixPath(cwd))
    except ValueError:
        return path
    text = str(relative)
    return path if text == "." else text
