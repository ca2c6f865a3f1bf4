"""Querying the search index: ``runtime.tasks.search`` without the transport.

:func:`search` takes the RPC payload ``{query, limit?, includeArchived?, includeToolOutput?,
projectId?}`` and returns ``{"results": [...]}``; each result is ``{deviceId, localTaskId,
title, snippet, messageIndex, role, updatedAt, deviceName, workspacePath, runtime,
runtimeHandle}`` (RW-052, RW-053). ``role`` is ``user``/``assistant``, or ``title`` for a
title hit (then ``messageIndex`` is ``null``: the task opens at its end); a task whose
messages match points at its newest matching message rather than its title. Matches in
``snippet`` are wrapped in ``«…»``.

Rules: one result per task (its newest matching row), tasks ordered by ``updatedAt``
newest first (RW-054), at most ``limit`` (default 20, 1..100; RW-055); archived tasks only
with ``includeArchived`` (RW-056); deleted (tombstoned) tasks never; ``projectId`` keeps
tasks whose group workspace (the Project key) equals it, and chat tasks belong to no Project
(RW-057, RW-058). Bad payloads are :class:`~hangar.errors.UsageError` (``bad_request``).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from hangar.device import Device
from hangar.errors import UsageError
from hangar.executor.database import ExecutorDatabase
from hangar.executor.search_index import SEQ_SHIFT
from hangar.executor.search_text import MARK_CLOSE, MARK_OPEN, clean_snippet, compile_query

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
SNIPPET_TOKENS = 24
SCAN_HITS = 5000


def _bool(payload: dict[str, Any], key: str) -> bool:
    value = payload.get(key, False)
    if not isinstance(value, bool):
        raise UsageError(f"{key} must be true or false")
    return value


def _limit(payload: dict[str, Any]) -> int:
    value = payload.get("limit", DEFAULT_LIMIT)
    if value is None:
        return DEFAULT_LIMIT
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError("limit must be an integer")
    if not 1 <= value <= MAX_LIMIT:
        raise UsageError(f"limit must be between 1 and {MAX_LIMIT}")
    return value


def search(db: ExecutorDatabase, device: Device, payload: object) -> dict[str, Any]:
    """Run one search (see the module docstring for the payload and the result shape)."""
    if not isinstance(payload, dict):
        raise UsageError("payload must be an object")
    expression = compile_query(payload.get("query"))
    limit = _limit(payload)
    include_archived = _bool(payload, "includeArchived")
    include_output = _bool(payload, "includeToolOutput")
    project = payload.get("projectId")
    if project is not None and not isinstance(project, str):
        raise UsageError("projectId must be a string")
    match = expression if include_output else "{body} : (" + expression + ")"
    filters = ["t.deleted_at IS NULL"]
    params: list[Any] = [match]
    if not include_archived:
        filters.append("coalesce(t.archived_override, t.archived) = 0")
    if project:
        filters.append("t.group_workspace_path = ? AND t.workspace_kind != 'chat'")
        params.append(project)
    where = " AND ".join(filters)
    conn = db.read()
    try:
        found = _matching_tasks(conn, match, where, params[1:], limit)
        results = [_result(conn, device, task, row_id, match) for task, row_id in found]
    except sqlite3.OperationalError as exc:
        raise UsageError(f"the search index cannot run this query: {exc}") from None
    return {"results": results}


_TASK_COLUMNS = (
    "t.local_task_id, t.runtime, t.runtime_handle, t.title, t.title_override,"
    " t.workspace_path, t.updated_at, p.task_seq"
)


def _matching_tasks(
    conn: sqlite3.Connection, match: str, where: str, params: list[Any], limit: int
) -> list[tuple[sqlite3.Row, int]]:
    """Up to ``limit`` matching tasks, newest first, each with its newest matching row.

    Few hits (≤ :data:`SCAN_HITS`): one pass over the hits gives each matching task and its
    newest matching row (``rowid >> SEQ_SHIFT``, ``max(rowid)``). Many hits (a common word):
    tasks are probed newest first, one rowid-range lookup each, until ``limit`` match. Either
    way the cost stays bounded however large the index grows.
    """
    hits = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM search_fts WHERE search_fts MATCH ? LIMIT ?)",
        (match, SCAN_HITS + 1),
    ).fetchone()[0]
    if hits <= SCAN_HITS:
        rows = conn.execute(
            "WITH matched AS (SELECT rowid >> ? AS seq, max(rowid) AS newest FROM search_fts"
            " WHERE search_fts MATCH ? GROUP BY seq)"
            f" SELECT {_TASK_COLUMNS}, m.newest FROM matched m"
            " JOIN search_progress p ON p.task_seq = m.seq"
            " JOIN local_tasks t ON t.local_task_id = p.local_task_id"
            f" WHERE {where} ORDER BY t.updated_at DESC, t.local_task_id LIMIT ?",
            [SEQ_SHIFT, match, *params, limit],
        ).fetchall()
        return [(row, int(row["newest"])) for row in rows]
    out: list[tuple[sqlite3.Row, int]] = []
    candidates = conn.execute(
        f"SELECT {_TASK_COLUMNS} FROM local_tasks t"
        " JOIN search_progress p ON p.local_task_id = t.local_task_id"
        f" WHERE p.task_seq IS NOT NULL AND {where}"
        " ORDER BY t.updated_at DESC, t.local_task_id",
        params,
    )
    for task in candidates:
        base = int(task["task_seq"]) << SEQ_SHIFT
        newest = conn.execute(
            "SELECT rowid FROM search_fts WHERE search_fts MATCH ? AND rowid BETWEEN ? AND ?"
            " ORDER BY rowid DESC LIMIT 1",
            (match, base, base + (1 << SEQ_SHIFT) - 1),
        ).fetchone()
        if newest is not None:
            out.append((task, int(newest[0])))
            if len(out) == limit:
                break
    return out


def _result(
    conn: sqlite3.Connection, device: Device, task: sqlite3.Row, row_id: int, match: str
) -> dict[str, Any]:
    row = conn.execute(
        "SELECT r.message_index, r.role, snippet(search_fts, -1, ?, ?, '…', ?)"
        " FROM search_fts JOIN search_rows r ON r.id = search_fts.rowid"
        " WHERE search_fts MATCH ? AND search_fts.rowid = ?",
        (MARK_OPEN, MARK_CLOSE, SNIPPET_TOKENS, match, row_id),
    ).fetchone()
    try:
        handle = json.loads(task["runtime_handle"] or "{}")
    except ValueError:
        handle = {}
    return {
        "deviceId": device.device_id,
        "localTaskId": task["local_task_id"],
        "title": task["title_override"] or task["title"],
        "snippet": clean_snippet(row[2] or "") if row else "",
        "messageIndex": row[0] if row else None,
        "role": row[1] if row else "title",
        "updatedAt": task["updated_at"],
        "deviceName": device.name,
        "workspacePath": task["workspace_path"],
        "runtime": task["runtime"],
        "runtimeHandle": handle if isinstance(handle, dict) else {},
    }
