"""Querying the search index: ``runtime.tasks.search`` without the transport.

:func:`search` takes the RPC request ``{query, limit?, includeArchived?, includeToolOutput?,
projectId?}`` (:class:`~hangar.protocol.tasks.SearchRequest`) and returns ``{"results":
[...]}``; each result is ``{deviceId, localTaskId,
title, snippet, messageIndex, role, updatedAt, deviceName, workspacePath, runtime,
runtimeHandle}`` (RW-052, RW-053). ``role`` is ``user``/``assistant``, or ``title`` for a
title hit (then ``messageIndex`` is ``null``: the task opens at its end); a task whose
messages match points at its newest matching message rather than its title. Matches in
``snippet`` are wrapped in ``«…»``.

Rules: one result per task (its newest matching row), tasks ordered by ``updatedAt``
newest first (RW-054), at most ``limit`` (default 20, 1..100; RW-055); archived tasks only
with ``includeArchived`` (RW-056); deleted (tombstoned) tasks never; ``projectId`` keeps
tasks whose group workspace (the Project key) equals it, and chat tasks belong to no Project
(RW-057, RW-058). A query the index cannot run is a :class:`~hangar.errors.UsageError`.
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
from hangar.protocol.tasks import SearchHit, SearchRequest, SearchResults

SNIPPET_TOKENS = 24
SCAN_HITS = 5000


def search(db: ExecutorDatabase, device: Device, request: SearchRequest) -> SearchResults:
    """Run one search (see the module docstring for the request and the result shape)."""
    expression = compile_query(request.query)
    limit = request.limit
    include_archived = request.include_archived
    include_output = request.include_tool_output
    project = request.project_id
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
    return SearchResults(results=results)


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
) -> SearchHit:
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
    return SearchHit(
        device_id=device.device_id,
        local_task_id=task["local_task_id"],
        title=task["title_override"] or task["title"],
        snippet=clean_snippet(row[2] or "") if row else "",
        message_index=row[0] if row else None,
        role=row[1] if row else "title",
        updated_at=task["updated_at"],
        device_name=device.name,
        workspace_path=task["workspace_path"],
        runtime=task["runtime"],
        runtime_handle=handle if isinstance(handle, dict) else {},
    )
