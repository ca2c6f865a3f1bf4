"""Copying a Claude Code session through one of its turns, by the CLI itself.

The pinned CLI forks with ``--resume SOURCE --resume-session-at ENTRY --fork-session
--session-id NEW`` in print mode: it writes a new session file ``NEW.jsonl`` holding the
source's chain up to and including ``ENTRY`` (the records' own uuids kept, the session id
rewritten) and never writes the source's file. It forks only while running a prompt, so the
prompt is Claude's own ``/rename <title>`` command: a local command that never reaches the
model, recorded in the new session as the command, its output and a ``custom-title`` (the
copy's name; the projector shows a ``/rename`` as the title, not as a turn).

``ENTRY`` is the chosen turn's last chain entry: the last main-chain record with a uuid
before the next prompt (a turn the source runs meanwhile starts at that prompt, so it is left
out however far it got).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import msgspec

from hangar.agents.claude import records as r
from hangar.agents.claude.prompts import INTERRUPTED, user_content
from hangar.agents.json_fields import text_or_none
from hangar.errors import HangarError, NotFoundError

FORK_TIMEOUT = 60.0


@dataclass(frozen=True)
class ForkPoint:
    entry: str
    """The uuid of the chosen turn's last chain entry (``--resume-session-at``)."""
    cwd: str | None
    """The directory the source session works in (Claude keys sessions by it)."""


def _is_prompt(record: r.Line) -> bool:
    """Whether a user line starts a turn (as the projector reads it)."""
    if record.type != "user" or record.is_meta is True or record.is_sidechain is True:
        return False
    if record.is_compact_summary is True:
        return False
    content = record.message.content if record.message else record.content
    prompt, attachments, results = user_content(content)
    if results or (prompt is None and not attachments):
        return False
    return not (isinstance(prompt, str) and prompt.startswith(INTERRUPTED))


def fork_point(path: Path, turn_id: str) -> ForkPoint:
    """Where a fork through turn ``turn_id`` (its prompt's uuid) ends in the file ``path``."""
    entry: str | None = None
    cwd: str | None = None
    inside = False
    with path.open("rb") as lines:
        for line in lines:
            try:
                record = r.decode_line(line)
            except (msgspec.DecodeError, msgspec.ValidationError):
                continue
            if cwd is None and isinstance(record.cwd, str) and record.cwd:
                cwd = record.cwd
            uuid = text_or_none(record.uuid)
            if _is_prompt(record):
                if inside:
                    break
                inside = uuid == turn_id
            if inside and uuid and record.is_sidechain is not True:
                entry = uuid
    if entry is None:
        raise NotFoundError(kind="turn", key=turn_id)
    return ForkPoint(entry, cwd)


def rename_command(title: str) -> str:
    """``/rename <title>`` on one line (the command reads its arguments from one line)."""
    return "/rename " + (" ".join(title.split()) or "Copy")


def fork_args(source: str, point: ForkPoint, new_session: str, title: str) -> list[str]:
    return [
        "-p",
        rename_command(title),
        "--resume",
        source,
        "--resume-session-at",
        point.entry,
        "--fork-session",
        "--session-id",
        new_session,
        "--output-format",
        "json",
    ]


class ClaudeForkFailed(HangarError):
    """The CLI did not write the fork (its error's last line is the message)."""

    code: ClassVar[str] = "agent_error"
    http_status: ClassVar[int] = 502


def check_fork(process: subprocess.Popen[bytes], forked: Callable[[], Path | None]) -> None:
    """Wait (bounded) for the fork's CLI; refuse when it failed or wrote no session (the
    caller ends the process either way)."""
    try:
        _, stderr = process.communicate(timeout=FORK_TIMEOUT)
    except subprocess.TimeoutExpired as exc:
        raise ClaudeForkFailed(f"claude did not fork within {FORK_TIMEOUT:.0f}s") from exc
    if process.returncode != 0:
        last = (stderr or b"").decode("utf-8", "replace").strip().splitlines()
        raise ClaudeForkFailed(
            f"claude could not fork the session: {last[-1] if last else process.returncode}"
        )
    if forked() is None:
        raise ClaudeForkFailed("claude finished without writing the forked session")
