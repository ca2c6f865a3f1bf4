"""Reading OpenCode's SQLite store (``opencode.db``, v1.2 and later) beside a live writer.

The database is opened read-only but normally, never with ``immutable=1``: OpenCode keeps
most recent data in ``opencode.db-wal`` while it runs, and only a normal open reads the WAL.
Every read is one short deferred transaction (a consistent snapshot; in WAL mode it never
blocks the writer) with a busy timeout for the rare moment a checkpoint holds a lock.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from hangar.agents.json_fields import JsonObject
from hangar.agents.opencode.project import RawMessage, RawSession

BUSY_TIMEOUT_MS = 2000


@contextmanager
def read_transaction(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection inside one short read transaction."""
    uri = f"file:{quote(str(path))}?mode=ro"
    conn = sqlite3.connect(
        uri,
        uri=True,
        timeout=BUSY_TIMEOUT_MS / 1000,
        isolation_level=None,
        check_same_thread=False,
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA query_only = 1")
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            conn.execute("COMMIT")
    finally:
        conn.close()


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _select(columns: set[str], wanted: tuple[str, ...]) -> str:
    return ", ".join(c if c in columns else f"NULL AS {c}" for c in wanted)


_SESSION_COLS = (
    "id",
    "parent_id",
    "directory",
    "title",
    "version",
    "time_created",
    "time_updated",
    "time_archived",
    "model",
)


def _session_info(row: sqlite3.Row) -> JsonObject:
    return {
        "id": row["id"],
        "parentID": row["parent_id"],
        "directory": row["directory"],
        "title": row["title"],
        "version": row["version"],
        "modelID": _model_id(row["model"]),
        "time": {
            "created": row["time_created"],
            "updated": row["time_updated"],
            "archived": row["time_archived"],
        },
    }


def _model_id(value: object) -> str | None:
    """The session's ``model`` column: ``{"id", "providerID", …}`` as JSON (1.18)."""
    if not isinstance(value, str):
        return None
    try:
        model = json.loads(value)
    except ValueError:
        return value
    found = model.get("id") if isinstance(model, dict) else None
    return found if isinstance(found, str) else None


def list_sessions(path: Path) -> list[JsonObject]:
    """Every session row as an info object (one query, no message reads)."""
    with read_transaction(path) as conn:
        conn.row_factory = sqlite3.Row
        cols = _columns(conn, "session")
        if not cols:
            return []
        rows = conn.execute(f"SELECT {_select(cols, _SESSION_COLS)} FROM session").fetchall()
    return [_session_info(row) for row in rows]


def max_updated(path: Path) -> int | None:
    """``max(time_updated)`` over sessions: a cheap change marker for the whole store."""
    with read_transaction(path) as conn:
        row = conn.execute("SELECT max(time_updated) FROM session").fetchone()
    return row[0] if row else None


def _decode(data: Any, raw: RawSession, kind: str) -> JsonObject | None:
    try:
        value = json.loads(data)
    except (TypeError, ValueError):
        raw.skipped.add(f"invalid_{kind}")
        return None
    if not isinstance(value, dict):
        raw.skipped.add(f"invalid_{kind}")
        return None
    return value


def load_session(path: Path, session_id: str) -> RawSession | None:
    """One session with its sub-agent sessions, read in one snapshot."""
    tree = (
        "WITH RECURSIVE tree(id, depth) AS (SELECT ?, 0 UNION ALL "
        "SELECT s.id, t.depth + 1 FROM session s JOIN tree t ON s.parent_id = t.id "
        "WHERE t.depth < 8) "
    )
    with read_transaction(path) as conn:
        conn.row_factory = sqlite3.Row
        cols = _columns(conn, "session")
        sessions = conn.execute(
            f"{tree}SELECT {_select(cols, _SESSION_COLS)} FROM session "
            "WHERE id IN (SELECT id FROM tree)",
            (session_id,),
        ).fetchall()
        if not sessions:
            return None
        tables = _tables(conn)
        messages: Sequence[Mapping[str, Any]] = []
        parts: Sequence[Mapping[str, Any]] = []
        if "message" in tables and "part" in tables:
            messages = conn.execute(
                f"{tree}SELECT id, session_id, data FROM message "
                "WHERE session_id IN (SELECT id FROM tree) ORDER BY time_created, id",
                (session_id,),
            ).fetchall()
            parts = conn.execute(
                f"{tree}SELECT id, message_id, data FROM part "
                "WHERE session_id IN (SELECT id FROM tree) ORDER BY message_id, id",
                (session_id,),
            ).fetchall()
        todo_cols = _columns(conn, "todo")
        todos: list[sqlite3.Row] = []
        if todo_cols:
            wanted = ("session_id", "content", "status", "priority", "position", "time_updated")
            todos = conn.execute(
                f"{tree}SELECT {_select(todo_cols, wanted)} FROM todo "
                "WHERE session_id IN (SELECT id FROM tree) ORDER BY session_id, position",
                (session_id,),
            ).fetchall()
        if not messages and "event" in tables:
            # Event-sourced stores (1.18's ``event`` table) without the projected rows.
            messages, parts = _from_events(conn, [row["id"] for row in sessions])
    return _assemble(session_id, sessions, messages, parts, todos)


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _from_events(
    conn: sqlite3.Connection, session_ids: list[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Message and part rows rebuilt from ``message.*`` events, latest version of each."""
    marks = ",".join("?" * len(session_ids))
    infos: dict[str, dict[str, Any]] = {}
    parts: dict[str, dict[str, Any]] = {}
    for kind, data in conn.execute(
        f"SELECT type, data FROM event WHERE aggregate_id IN ({marks}) "
        "AND type LIKE 'message.%' ORDER BY aggregate_id, seq",
        session_ids,
    ):
        try:
            event = json.loads(data)
        except (TypeError, ValueError):
            continue
        if not isinstance(event, dict):
            continue
        name = str(kind).rsplit(".", 1)[0]
        info, part = event.get("info"), event.get("part")
        if name == "message.updated" and isinstance(info, dict) and "id" in info:
            infos[info["id"]] = info
        elif name == "message.removed" and isinstance(event.get("messageID"), str):
            infos.pop(event["messageID"], None)
        elif name == "message.part.updated" and isinstance(part, dict) and "id" in part:
            parts[part["id"]] = part
        elif name == "message.part.removed" and isinstance(event.get("partID"), str):
            parts.pop(event["partID"], None)
    message_rows = [
        {"id": mid, "session_id": info.get("sessionID"), "data": json.dumps(info)}
        for mid, info in sorted(infos.items(), key=lambda kv: (_created(kv[1]), kv[0]))
    ]
    part_rows = [
        {"id": pid, "message_id": part.get("messageID"), "data": json.dumps(part)}
        for pid, part in sorted(parts.items(), key=lambda kv: (str(kv[1].get("messageID")), kv[0]))
    ]
    return message_rows, part_rows


def _created(info: dict[str, Any]) -> int:
    times = info.get("time")
    created = times.get("created") if isinstance(times, dict) else None
    return created if isinstance(created, int) else 0


def _assemble(
    root_id: str,
    sessions: list[sqlite3.Row],
    messages: Sequence[Mapping[str, Any]],
    parts: Sequence[Mapping[str, Any]],
    todos: list[sqlite3.Row],
) -> RawSession:
    raw = {row["id"]: RawSession(row["id"], _session_info(row)) for row in sessions}
    by_message: dict[str, RawMessage] = {}
    for row in messages:
        session = raw[row["session_id"]]
        info = _decode(row["data"], session, "message")
        if info is None:
            continue
        message = RawMessage(row["id"], info)
        session.messages.append(message)
        by_message[row["id"]] = message
    root = raw[root_id]
    for row in parts:
        part = _decode(row["data"], root, "part")
        owner = by_message.get(row["message_id"])
        if part is None:
            continue
        if owner is None:
            root.skipped.add("orphan_part")
            continue
        part.setdefault("id", row["id"])
        owner.parts.append(part)
    for todo_row in todos:
        session = raw[todo_row["session_id"]]
        session.todos = [*(session.todos or []), dict(todo_row)]
        updated = todo_row["time_updated"]
        if isinstance(updated, int):
            session.todo_updated = max(session.todo_updated or 0, updated)
    for session in raw.values():
        parent = session.info.get("parentID")
        if session.id != root_id and isinstance(parent, str) and parent in raw:
            raw[parent].children.append(session)
    for session in raw.values():
        session.children.sort(key=lambda s: (s.info["time"]["created"] or 0, s.id))
    return root
