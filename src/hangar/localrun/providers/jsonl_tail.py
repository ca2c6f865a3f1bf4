"""Complete lines appended to a file since the last read (partial lines wait for their end)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def appended(path: Path, offset: int) -> bytes:
    """The bytes written to ``path`` after ``offset`` (none while it cannot be read)."""
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            return handle.read()
    except OSError:
        return b""


class JsonlTail:
    def __init__(self, path: Path | None = None, offset: int = 0) -> None:
        self.path = path
        self.offset = offset
        self.partial = b""
        self.line = 0
        """Number of the last complete line read (1-based), a stable key in an append-only file."""

    def records(self) -> list[tuple[int, dict[str, Any]]]:
        """``(line number, record)`` of each new complete line that is a JSON object."""
        if self.path is None:
            return []
        data = appended(self.path, self.offset)
        if not data:
            return []
        self.offset += len(data)
        *lines, self.partial = (self.partial + data).split(b"\n")
        out: list[tuple[int, dict[str, Any]]] = []
        for raw in lines:
            self.line += 1
            try:
                record = json.loads(raw)
            except ValueError:
                continue  # a broken line is skipped, never fatal
            if isinstance(record, dict):
                out.append((self.line, record))
        return out
