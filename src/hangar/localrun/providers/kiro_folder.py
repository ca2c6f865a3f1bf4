"""Kiro CLI's per-folder conversation row, and who else may be writing it.

Kiro CLI 1.x keeps one conversation per working directory in its SQLite store
(``$XDG_DATA_HOME|~/.local/share/kiro-cli/data.sqlite3``, table ``conversations_v2``, ``key`` =
the directory) and rewrites the row's ``value`` (the whole payload) after every turn. Every
``kiro-cli chat`` started in that folder writes the same row, so the row alone does not say
which process wrote it; :func:`folder_contested` tells whether another process in the folder
holds the store open (a Kiro CLI keeps its database open while it runs: its settings and
login live there too).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from hangar.agents.registry import agents

PROC = Path("/proc")


@dataclass(frozen=True)
class FolderRow:
    conversation_id: str
    value: str


def database(env: Mapping[str, str]) -> Path:
    legacy = agents()["kiro"].resolve_home(env).location("legacyData")
    assert legacy is not None  # declared in the agent registry
    return legacy / "data.sqlite3"


def folder_row(db: Path, cwd: Path) -> FolderRow | None:
    """The folder's conversation row, if any (``None`` also while it cannot be read)."""
    if not db.exists():
        return None
    try:
        with closing(sqlite3.connect(f"file:{quote(str(db))}?mode=ro", uri=True, timeout=2)) as c:
            row = c.execute(
                "SELECT conversation_id, value FROM conversations_v2 WHERE key = ?", (str(cwd),)
            ).fetchone()
    except sqlite3.Error:
        return None  # being written, or not Kiro's: look again on the next poll
    return FolderRow(str(row[0]), str(row[1])) if row else None


def folder_contested(db: Path, cwd: Path, own_session: int | None) -> bool:
    """True when a process outside the run's own CLI (its session ``own_session``) and outside
    hangar works in ``cwd`` with Kiro's store open, or when that cannot be ruled out (the
    run's CLI has not started yet, or there is no ``/proc``)."""
    if own_session is None or not PROC.is_dir():
        return True
    folder, store = Path(os.path.realpath(cwd)), Path(os.path.realpath(db))
    me = os.getpid()
    for entry in PROC.iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            if (entry / "cwd").readlink() != folder:
                continue
            if os.getsid(int(entry.name)) == own_session:
                continue  # the run's own CLI or a child of it
            if any(fd.readlink() == store for fd in (entry / "fd").iterdir()):
                return True
        except OSError:
            continue  # gone, or not ours to look at
    return False
