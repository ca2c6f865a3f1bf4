"""Reading OpenCode's legacy JSON storage tree (before v1.2).

Layout: ``storage/session/<projectID>/<sessionID>.json``,
``storage/message/<sessionID>/<messageID>.json``, ``storage/part/<messageID>/<partID>.json``
and ``storage/todo/<sessionID>.json``. Some versions wrote parts flat as
``storage/part/<partID>.json`` carrying a ``messageID`` field; both are read. File names are
OpenCode's sortable ids, so name order is creation order.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from hangar.agents.json_fields import JsonObject, as_map, as_str
from hangar.agents.json_records import SkipCounter
from hangar.agents.opencode.project import RawMessage, RawSession
from hangar.regular_files import read_regular_bytes

MAX_FILE_BYTES = 64 * 1024 * 1024


def read_json(path: Path, skipped: SkipCounter) -> object:
    """A JSON file's value, or ``None`` (counted) when it cannot be read as JSON."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            skipped.add("oversized_file")
            return None
        data = read_regular_bytes(path)
    except OSError:
        skipped.add("unreadable_file")
        return None
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError):
        skipped.add("invalid_json")
        return None


def session_files(storage: Path) -> Iterator[Path]:
    yield from sorted((storage / "session").glob("*/*.json"))


def read_session_info(path: Path, skipped: SkipCounter) -> JsonObject | None:
    info = read_json(path, skipped)
    if not isinstance(info, dict) or not isinstance(info.get("id"), str):
        return None
    return info


def _parts(
    storage: Path, message_id: str, flat: dict[str, list[JsonObject]] | None, skipped: SkipCounter
) -> list[JsonObject]:
    folder = storage / "part" / message_id
    if folder.is_dir():
        parts = []
        for file in sorted(folder.glob("*.json")):
            part = read_json(file, skipped)
            if isinstance(part, dict):
                parts.append(part)
            elif part is not None:
                skipped.add("invalid_part")
        return parts
    return (flat or {}).get(message_id, [])


def _flat_parts(storage: Path, skipped: SkipCounter) -> dict[str, list[JsonObject]]:
    grouped: dict[str, list[JsonObject]] = {}
    for file in sorted((storage / "part").glob("*.json")):
        part = read_json(file, skipped)
        if isinstance(part, dict) and isinstance(part.get("messageID"), str):
            grouped.setdefault(part["messageID"], []).append(part)
        elif part is not None:
            skipped.add("invalid_part")
    return grouped


def load_session(session_file: Path, depth: int = 0) -> RawSession | None:
    """One session (and its children) from the tree ``session_file`` belongs to."""
    storage = session_file.parents[2]
    skipped = SkipCounter()
    info = read_session_info(session_file, skipped)
    if info is None:
        raw = RawSession(session_file.stem, {"id": session_file.stem})
        raw.skipped = skipped
        return raw
    raw = RawSession(info["id"], info, skipped=skipped)
    flat = _flat_parts(storage, skipped) if (storage / "part").is_dir() else None
    loaded: list[tuple[int, str, RawMessage]] = []
    for file in sorted((storage / "message" / raw.id).glob("*.json")):
        message = read_json(file, skipped)
        if not isinstance(message, dict):
            if message is not None:
                skipped.add("invalid_message")
            continue
        msg_id = as_str(message.get("id")) or file.stem
        created = as_map(message.get("time")).get("created")
        created = created if isinstance(created, int) else 0
        loaded.append((created, file.name, RawMessage(msg_id, message)))
    loaded.sort(key=lambda item: (item[0], item[1]))
    for _, _, message in loaded:
        message.parts = _parts(storage, message.id, flat, skipped)
        raw.messages.append(message)
    todo_file = storage / "todo" / f"{raw.id}.json"
    if todo_file.is_file():
        todos = read_json(todo_file, skipped)
        if isinstance(todos, list):
            raw.todos = todos
            raw.todo_updated = int(todo_file.stat().st_mtime * 1000)
    if depth < 4:
        for file in session_files(storage):
            if file == session_file:
                continue
            child_info = read_session_info(file, SkipCounter())
            if child_info is not None and child_info.get("parentID") == raw.id:
                child = load_session(file, depth + 1)
                if child is not None:
                    raw.children.append(child)
    return raw
