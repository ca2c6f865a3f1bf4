"""Querying the search index: ``runtime.tasks.search`` without the transport.

:func:`search` takes the RPC request ``{query, limit?, includeArchived?, includeToolOutput?,
projectId?, order?, runtime?, updatedAfter?, updatedBefore?}``
(:class:`~hangar.protocol.tasks.SearchRequest`) and returns ``{"results": [...]}``; each
result is ``{deviceId, localTaskId, title, snippet, messageIndex, role, updatedAt,
deviceName, workspacePath, runtime, runtimeHandle, matches, matchCount, score}`` (RW-052,
RW-053). ``role`` is ``user``/``assistant``, or ``title`` for a title hit (then
``messageIndex`` is ``null``: the task opens at its end). Matches in snippets are wrapped in
``«…»``.

Rules: one result per task. Its ``snippet``/``messageIndex`` describe its newest matching
row (its best with ``order: "relevance"``); ``matches`` holds up to :data:`MATCHES_PER_TASK`
of its matching rows in the same order (each ``{messageIndex, role, snippet, createdAt}``)
and ``matchCount`` their number (the title counts only when no message matches). Tasks are
ordered by ``updatedAt`` newest first (RW-054) or, with ``order: "relevance"``, by their
best FTS5 rank (``score``, lower is better); at most ``limit`` (default 20, 1..100;
RW-055); archived tasks only with ``includeArchived`` (RW-056); deleted (tombstoned) tasks
never; ``projectId`` keeps tasks whose group workspace (the Project key) equals it, and
chat tasks belong to no Project (RW-057, RW-058); ``runtime`` keeps one agent's tasks,
``updatedAfter``/``updatedBefore`` a span of ``updatedAt`` (ISO text, after inclusive,
before exclusive). A query the index cannot run is a :class:`~hangar.errors.UsageError`.
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
from hangar.protocol.tasks import SearchHit, SearchMatch, SearchRequest, SearchResults

SNIPPET_TOKENS = 24
SCAN_HITS = 5000
MATCHES_PER_TASK = 5
"""At most this many matching rows are returned per task (``matches``)."""


def search(db: ExecutorDatabase, device: Device, request: SearchRequest) -> SearchResults:
    """Run one search (see the module docstring for the request and the result shape)."""
    expression = compile_query(request.query)
    include_output = request.include_tool_output
    match = expression if include_output else "{body} : (" + expression + ")"
    filters = ["t.deleted_at IS NULL"]
    params: list[Any] = []
    if not request.include_archived:
        filters.append("coalesce(t.archived_override, t.archived) = 0")
    if request.project_id:
        filters.append("t.group_workspace_path = ? AND t.workspace_kind != 'chat'")
        params.append(request.project_id)
    if request.runtime:
        filters.append("t.runtime = ?")
        params.append(request.runtime)
    if request.updated_after:
        filters.append("t.updated_at >= ?")
        params.append(request.updated_after)
    if request.updated_before:
        filters.append("t.updated_at < ?")
        params.append(request.updated_before)
    where = " AND ".join(filters)
    relevance = request.order == "relevance"
    conn = db.read()
    try:
        found, matched = _matching_tasks(conn, match, where, params, request.limit, relevance)
        described = [_result(conn, device, task, match, relevance, matched) for task in found]
        if not relevance:
            _add_scores(conn, match, described)
    except sqlite3.OperationalError as exc:
        raise UsageError(f"the search index cannot run this query: {exc}") from None
    return SearchResults(results=[hit for hit, _ in described])


def _add_scores(
    conn: sqlite3.Connection, match: str, described: list[tuple[SearchHit, int | None]]
) -> None:
    """Each hit's ``score``: the FTS5 rank of the row it describes, in one statement.

    bm25 first counts the query's matches over the whole index; that pass is shared by the
    rows of one statement only. The ``+`` keeps SQLite from turning ``rowid IN`` into one
    lookup (and one such pass) per row: the matches are scanned once and filtered."""
    wanted = {rowid: hit for hit, rowid in described if rowid is not None}
    if not wanted:
        return
    marks = ",".join("?" * len(wanted))
    for rowid, rank in conn.execute(
        f"SELECT rowid, rank FROM search_fts WHERE search_fts MATCH ? AND +rowid IN ({marks})",
        (match, *wanted),
    ):
        wanted[rowid].score = float(rank)


_BEST = f"coalesce(min(CASE WHEN rowid & {(1 << SEQ_SHIFT) - 1} THEN {{rank}} END), min({{rank}}))"
"""A task's best rank: its best message's, its title's only when no message matches (as
:func:`_result` reports it)."""

_TASK_COLUMNS = (
    "t.local_task_id, t.runtime, t.runtime_handle, t.title, t.title_override,"
    " t.workspace_path, t.updated_at, p.task_seq"
)


def _matching_tasks(
    conn: sqlite3.Connection,
    match: str,
    where: str,
    params: list[Any],
    limit: int,
    relevance: bool,
) -> tuple[list[sqlite3.Row], dict[int, list[int]] | None]:
    """Up to ``limit`` matching tasks, newest (or best matching) first, and (when the hits
    were few enough to read) every matching rowid by task sequence number.

    Few hits (≤ :data:`SCAN_HITS`): by date, one pass reads the matching rowids and each
    task is ``rowid >> SEQ_SHIFT``; by relevance, one pass gives each matching task its best
    rank. Many hits (a common word): by date, tasks are probed newest first, one rowid-range
    lookup each, until ``limit`` match; by relevance, only the :data:`SCAN_HITS` best-ranked
    rows are grouped. Either way the cost stays bounded however large the index grows.
    """
    order = "t.updated_at DESC, t.local_task_id"
    if not relevance:
        # One pass over the matches (a phrase's costs as much as bm25's): the rowids tell
        # the tasks here and each task's matching rows in _result, with no second pass.
        rowids = [
            int(row[0])
            for row in conn.execute(
                "SELECT rowid FROM search_fts WHERE search_fts MATCH ? LIMIT ?",
                (match, SCAN_HITS + 1),
            )
        ]
        if len(rowids) <= SCAN_HITS:
            matched: dict[int, list[int]] = {}
            for rowid in rowids:
                matched.setdefault(rowid >> SEQ_SHIFT, []).append(rowid)
            rows: list[sqlite3.Row] = conn.execute(
                f"SELECT {_TASK_COLUMNS} FROM search_progress p"
                " JOIN local_tasks t ON t.local_task_id = p.local_task_id"
                f" WHERE p.task_seq IN (SELECT value FROM json_each(?)) AND {where}"
                f" ORDER BY {order} LIMIT ?",
                [json.dumps(list(matched)), *params, limit],
            ).fetchall()
            return rows, matched
    else:
        hits = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM search_fts WHERE search_fts MATCH ? LIMIT ?)",
            (match, SCAN_HITS + 1),
        ).fetchone()[0]
        order = "m.best, " + order
        source = (
            f"SELECT rowid >> ? AS seq, {_BEST.format(rank='rank')} AS best FROM search_fts"
            " WHERE search_fts MATCH ? GROUP BY seq"
        )
        if hits > SCAN_HITS:
            source = (
                f"SELECT rowid >> ? AS seq, {_BEST.format(rank='r')} AS best"
                " FROM (SELECT rowid, rank AS r"
                f" FROM search_fts WHERE search_fts MATCH ? ORDER BY rank LIMIT {SCAN_HITS})"
                " GROUP BY seq"
            )
        ranked: list[sqlite3.Row] = conn.execute(
            f"WITH matched AS ({source})"
            f" SELECT {_TASK_COLUMNS} FROM matched m"
            " JOIN search_progress p ON p.task_seq = m.seq"
            " JOIN local_tasks t ON t.local_task_id = p.local_task_id"
            f" WHERE {where} ORDER BY {order} LIMIT ?",
            [SEQ_SHIFT, match, *params, limit],
        ).fetchall()
        return ranked, None
    out: list[sqlite3.Row] = []
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
            " LIMIT 1",
            (match, base, base + (1 << SEQ_SHIFT) - 1),
        ).fetchone()
        if newest is not None:
            out.append(task)
            if len(out) == limit:
                break
    return out, None


def _result(
    conn: sqlite3.Connection,
    device: Device,
    task: sqlite3.Row,
    match: str,
    relevance: bool,
    matched: dict[int, list[int]] | None = None,
) -> tuple[SearchHit, int | None]:
    """The hit for one task, and the rowid of the row it describes (``None``: no row).
    ``matched``: every matching rowid by task, when :func:`_matching_tasks` read them."""
    seq = int(task["task_seq"])
    base = seq << SEQ_SHIFT
    order = "rank" if relevance else "search_fts.rowid DESC"
    # By date the rank of the newest row is filled in later for every result at once
    # (:func:`_add_scores`): asked here, FTS5 would rescan the whole index once per task.
    rank = "rank" if relevance else "NULL"
    # Messages first: the title (row ``base``) counts only when no message matches, since it
    # mostly repeats the first request.
    spans = [(base + 1, base + (1 << SEQ_SHIFT) - 1), (base, base)]
    known: int | None = None
    if matched is not None:
        mine = matched.get(seq, [])
        messages = sum(rowid != base for rowid in mine)
        spans = spans[:1] if messages else spans[1:]
        known = messages or len(mine)
    rows: list[Any] = []
    count = 0
    for span in spans:
        rows = conn.execute(
            "SELECT r.message_index, r.role, r.created_at,"
            f" snippet(search_fts, -1, ?, ?, '…', ?), {rank}, search_fts.rowid"
            " FROM search_fts JOIN search_rows r ON r.id = search_fts.rowid"
            " WHERE search_fts MATCH ? AND search_fts.rowid BETWEEN ? AND ?"
            f" ORDER BY {order} LIMIT ?",
            (MARK_OPEN, MARK_CLOSE, SNIPPET_TOKENS, match, *span, MATCHES_PER_TASK),
        ).fetchall()
        if rows:
            count = (
                known
                if known is not None
                else conn.execute(
                    "SELECT count(*) FROM search_fts WHERE search_fts MATCH ?"
                    " AND rowid BETWEEN ? AND ?",
                    (match, *span),
                ).fetchone()[0]
            )
            break
    matches = [
        SearchMatch(
            message_index=row[0],
            role=row[1],
            snippet=clean_snippet(row[3] or ""),
            created_at=row[2],
        )
        for row in rows
    ]
    first = matches[0] if matches else None
    try:
        handle = json.loads(task["runtime_handle"] or "{}")
    except ValueError:
        handle = {}
    hit = SearchHit(
        device_id=device.device_id,
        local_task_id=task["local_task_id"],
        title=task["title_override"] or task["title"],
        snippet=first.snippet if first else "",
        message_index=first.message_index if first else None,
        role=first.role if first else "title",
        updated_at=task["updated_at"],
        device_name=device.name,
        workspace_path=task["workspace_path"],
        runtime=task["runtime"],
        runtime_handle=handle if isinstance(handle, dict) else {},
        matches=matches,
        match_count=max(count, len(matches)),
        score=float(rows[0][4]) if rows and rows[0][4] is not None else None,
    )
    return hit, (rows[0][5] if rows else None)
