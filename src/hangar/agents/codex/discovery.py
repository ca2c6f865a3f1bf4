"""Finding Codex rollouts: ``sessions/YYYY/MM/DD/rollout-*.jsonl[.zst]`` and
``archived_sessions/`` (a plain ``.jsonl`` wins over its ``.zst``), thread names from
``session_index.jsonl`` (last entry per id wins), and per-file metadata from the first line
(``session_meta``) and the last lines (latest timestamp, model).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

import msgspec

from hangar.agents.base import SessionSource
from hangar.agents.codex import records as r
from hangar.agents.codex.context import image_wrapper, visible_request
from hangar.agents.peek import head_lines, tail_lines
from hangar.agents.session_folders import files_below
from hangar.agents.text import content_text
from hangar.agents.timestamps import iso_from_seconds
from hangar.regular_files import read_regular_bytes

_THREAD_ID = re.compile(
    r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(?:\.zst)?$", re.I
)


class _IndexEntry(msgspec.Struct):
    id: str | None = None
    thread_name: str | None = None


_INDEX_ENTRY = msgspec.json.Decoder(_IndexEntry)


def rollout_paths(home: Path) -> Iterator[Path]:
    """Rollout files under the live and archived folders, plain before compressed."""
    for folder, depth in (("sessions", 3), ("archived_sessions", 0)):
        found = list(files_below(home / folder, depth, _is_rollout_name))
        plain = {p.name for p in found if p.name.endswith(".jsonl")}
        for path in found:
            if path.name.endswith(".jsonl") or (
                path.name.endswith(".jsonl.zst") and path.name[:-4] not in plain
            ):
                yield path


def _is_rollout_name(name: str) -> bool:
    return name.startswith("rollout-")


def thread_id_from_name(path: Path) -> str | None:
    match = _THREAD_ID.search(path.name)
    return match.group(1).lower() if match else None


def read_thread_names(index: Path) -> dict[str, str]:
    names: dict[str, str] = {}
    try:
        data = read_regular_bytes(index)
    except OSError:
        return names
    for line in data.split(b"\n"):
        try:
            entry = _INDEX_ENTRY.decode(line)
        except msgspec.DecodeError:
            continue
        if entry.id and entry.thread_name:
            names[entry.id] = entry.thread_name
    return names


def _is_child(meta: r.SessionMeta) -> bool:
    return bool(meta.parent_thread_id) or (
        isinstance(meta.source, dict) and "subagent" in meta.source
    )


def describe_rollout(path: Path, home: Path) -> SessionSource:
    """A :class:`SessionSource` from the head and tail of one rollout file."""
    meta = r.SessionMeta()
    title: str | None = None
    for line in head_lines(path):
        try:
            envelope = r.ENVELOPE.decode(line)
            if envelope.type == "session_meta" and meta.id is None:
                meta = r.SESSION_META.decode(envelope.payload)
            elif title is None and envelope.type in ("response_item", "event_msg"):
                title = _first_request(envelope)
        except msgspec.DecodeError:
            continue
        if title is not None:
            break
    updated_at: str | None = None
    model: str | None = None
    for line in reversed(tail_lines(path)):
        try:
            envelope = r.ENVELOPE.decode(line)
        except msgspec.DecodeError:
            continue
        updated_at = updated_at or envelope.timestamp
        if model is None and envelope.type == "turn_context":
            with contextlib.suppress(msgspec.DecodeError):
                model = r.TURN_CONTEXT.decode(envelope.payload).model
        if updated_at and model:
            break
    thread_id = thread_id_from_name(path) or meta.id or meta.session_id or path.stem
    archived = path.parent.name == "archived_sessions"
    if updated_at is None:
        updated_at = iso_from_seconds(path.stat().st_mtime)
    return SessionSource(
        runtime="codex",
        session_id=thread_id,
        path=path,
        runtime_handle={"threadId": thread_id},
        title=title,
        workspace_path=meta.cwd,
        created_at=meta.timestamp,
        updated_at=updated_at,
        model=model,
        archived=archived,
        parent_session_id=(meta.parent_thread_id or "unknown") if _is_child(meta) else None,
    )


def _first_request(envelope: r.Envelope) -> str | None:
    """The first visible user request in a head line, for a title before any full read."""
    if envelope.type == "event_msg":
        event = r.EVENT_MSG.decode(envelope.payload)
        text = event.message if event.type == "user_message" else None
    else:
        item = r.RESPONSE_ITEM.decode(envelope.payload)
        if item.role != "user" or item.type not in ("message", ""):
            return None
        parts = item.content if isinstance(item.content, list) else [item.content]
        # An image-only request has only Codex's <image path=…> wrapper as text: no title.
        text = content_text([p for p in parts if not _is_image_wrapper(p)])
    visible = visible_request(text) if isinstance(text, str) else None
    if visible is None or not visible.text:
        return None
    return visible.text.splitlines()[0][:120]


def _is_image_wrapper(part: object) -> bool:
    text = part.get("text") if isinstance(part, dict) else part
    return isinstance(text, str) and image_wrapper(text)[0]
