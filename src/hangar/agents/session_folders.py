"""Listing session files under an agent home with ``os.scandir``, not ``pathlib`` globs.

Every rescan of the task index lists every agent's session files; a ``Path.glob`` and a sort of
``Path`` objects cost several times the ``stat`` calls that follow them. :func:`files_below`
gives the same answer as ``sorted(root.glob("*/…/*/<pattern>"))`` for a fixed depth: folders
(symlinks to folders included) walked in name order, then the entries of the last level whose
name passes ``accept``, in name order. An unreadable or vanished folder is skipped, as a glob
skips it; what an entry is (file, FIFO, …) is left to the caller's ``lstat``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path


def files_below(root: Path, depth: int, accept: Callable[[str], bool]) -> Iterator[Path]:
    """Entries ``depth`` folders below ``root`` whose name passes ``accept``, sorted by their
    path's parts."""
    entries = _entries(str(root))
    if depth == 0:
        for name, _ in entries:
            if accept(name):
                yield root / name
        return
    for name, entry in entries:
        if _is_folder(entry):
            yield from files_below(root / name, depth - 1, accept)


def _entries(folder: str) -> list[tuple[str, os.DirEntry[str]]]:
    try:
        with os.scandir(folder) as scan:
            return sorted(((e.name, e) for e in scan), key=lambda pair: pair[0])
    except OSError:
        return []


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
