"""Reading the agents' own stores back (for assertions and the corpus), read-only."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any


def snapshot(globs: list[tuple[Path, str]]) -> dict[Path, tuple[int, int]]:
    """``path → (mtime_ns, size)`` of every file matching the ``(folder, glob)`` pairs."""
    found: dict[Path, tuple[int, int]] = {}
    for folder, pattern in globs:
        if folder.is_dir():
            for path in folder.glob(pattern):
                if path.is_file():
                    stat = path.stat()
                    found[path] = (stat.st_mtime_ns, stat.st_size)
    return found


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def sqlite_rows(db: Path, table: str) -> list[dict[str, Any]]:
    """All rows of ``table``; opened normally so SQLite also reads the ``-wal`` file."""
    connection = sqlite3.connect(db)
    try:
        connection.row_factory = sqlite3.Row
        return [dict(row) for row in connection.execute(f'SELECT * FROM "{table}"')]
    finally:
        connection.close()
