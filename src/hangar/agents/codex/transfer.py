"""A Codex session's files for a copy on another device (RW-310).

A fork's history stands on its parent's rollout (:mod:`hangar.agents.codex.forks`), so the
files of a session are its rollout and every ancestor rollout its ``forked_from_id`` chain
names. They travel verbatim under ``sessions/YYYY/MM/DD/<file>`` (the date from the file's
own name) and are placed there in the target's ``$CODEX_HOME`` — written once, exclusively,
never over a different file — so that Codex itself finds the thread to fork from by its id.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

import msgspec

from hangar.agents.codex.forks import MAX_DEPTH
from hangar.agents.codex.subagents import find_rollout
from hangar.errors import UsageError
from hangar.regular_files import open_regular

_NAME = re.compile(
    r"^rollout-(\d{4})-(\d{2})-(\d{2})T[0-9-]+-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$"
)


class _Meta(msgspec.Struct):
    forked_from_id: str | None = None


class _First(msgspec.Struct):
    type: str | None = None
    payload: _Meta | None = None


_FIRST = msgspec.json.Decoder(_First)


def relative_name(path: Path) -> str | None:
    """``sessions/YYYY/MM/DD/<file>`` for a rollout file name Codex writes, else ``None``."""
    found = _NAME.match(path.name)
    if found is None:
        return None
    year, month, day, _ = found.groups()
    return f"sessions/{year}/{month}/{day}/{path.name}"


def thread_of(name: str) -> str | None:
    found = _NAME.match(PurePosixPath(name).name)
    return found.group(4) if found else None


def _parent(path: Path) -> str | None:
    try:
        with open_regular(path) as handle:
            first = handle.readline()
        meta = _FIRST.decode(first)
    except (OSError, msgspec.DecodeError):
        return None
    if meta.type != "session_meta" or meta.payload is None:
        return None
    return meta.payload.forked_from_id


def session_files(home: Path, rollout: Path) -> dict[str, Path]:
    """The rollout and its ancestors, by their relative name."""
    found: dict[str, Path] = {}
    current: Path | None = rollout
    for _ in range(MAX_DEPTH):
        if current is None:
            break
        name = relative_name(current)
        if name is None:
            raise UsageError(f"{current.name} is not a rollout file name Codex writes")
        found[name] = current
        parent = _parent(current)
        current = find_rollout(home, current, parent) if parent else None
    return found


def import_files(home: Path, files: Mapping[str, bytes]) -> list[str]:
    """Write ``files`` under ``home``; returns the thread ids new here (a file already there
    with the same bytes is kept; one with other bytes is refused before anything is
    written)."""
    planned: list[tuple[Path, bytes, str]] = []
    for name, content in files.items():
        thread = thread_of(name)
        if relative_name(Path(name)) != name or thread is None:
            raise UsageError(f"{name!r} is not a Codex session file name")
        target = home / name
        existing = find_rollout(home, target, thread)
        if existing is not None:
            if existing.read_bytes() != content:
                raise UsageError(f"thread {thread} exists here with other content")
            continue
        planned.append((target, content, thread))
    for target, content, _ in planned:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
    return [thread for _, _, thread in planned]
