"""Keeping the FTS5 search index in ``executor.db`` current with the transcripts.

:class:`SearchIndexer` indexes every LocalTask of the index (``local_tasks``) that is not
deleted. Per task it stores one row for the title and one row per message: ``body`` holds
user text, assistant text, plans and tool commands; ``output`` holds tool output (searched
only when a query asks for it). Messages keep their transcript ``index``, so a hit opens
the transcript at that message.

Incremental contract: reading goes through a :class:`~hangar.transcripts.engine.TranscriptEngine`
(the executor's indexing engine, shared with the LocalTask index), so the indexer uses the
same signatures, byte offsets and append path as the transcript engine. A task whose
signature did not change is not read at all; after an append only the new bytes are read
(while its parse state is cached) and only the rows from the first changed message on are
replaced. ``stats.bytes_read`` counts every transcript byte read.
A source that cannot be read or parsed records its error in ``search_progress`` and the rest
of the index is untouched.

One parse per change: every full parse the indexer makes (here or in a worker process) is
reported to ``on_parse`` (the executor records the message count, status and title it
learned, so its background indexer does not read that file again), and the executor's
background indexer hands the sessions it parses to :meth:`SearchIndexer.index_parsed` (so this
indexer does not read them again either).

A large first build (more than :data:`PARALLEL_MIN_BYTES` pending) parses sessions in
``workers`` processes while this process writes the index; those sessions are then cold in
this process's engine, so the first append to one of them re-reads that one file, later
appends read only the new bytes. Tool output is indexed up to :data:`MAX_OUTPUT_CHARS` per
call (its first and last part, where commands print their summary and errors).
"""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hangar.agents.base import AgentStore, SessionSource, SessionSummary
from hangar.agents.homes import AgentHome
from hangar.agents.registry import store_classes
from hangar.executor.database import ExecutorDatabase
from hangar.executor.search_text import prepare_text
from hangar.executor.trash import now_iso
from hangar.model import Message, PlanBlock, TextBlock, ToolBlock
from hangar.transcripts.engine import CachedTranscript, EngineStats, TranscriptEngine
from hangar.transcripts.signature import FileSignature, sign, stat_matches
from hangar.transcripts.tail import TurnTables, decode_table, encode_table

MAX_COMMAND_CHARS = 4096
MAX_OUTPUT_CHARS = 1024
_OUTPUT_HEAD = 256
PARALLEL_MIN_BYTES = 64 * 1024 * 1024
BATCH_BYTES = 32 * 1024 * 1024
"""A parallel build writes what its workers parsed in one transaction per this many source
bytes (or fewer, at the end)."""
SEQ_SHIFT = 20
MAX_MESSAGES = (1 << SEQ_SHIFT) - 1
"""Messages with a higher transcript index are not indexed (ids are per-task ranges)."""
Row = tuple[int, str, str | None, str, str]
"""(message index, role, createdAt, body, output) as stored (CJK already prepared)."""
_COMMAND_KEYS = ("command", "cmd", "commands", "pattern", "query", "file_path", "path", "url")

OnParse = Callable[[str, SessionSummary, FileSignature], None]
"""``on_parse(local_task_id, summary, signature)``: a full parse of the task's file happened."""


@dataclass
class IndexProgress:
    """Where a sync stands; ``total_bytes`` is the size of the sources still to read."""

    tasks_total: int = 0
    tasks_done: int = 0
    total_bytes: int = 0
    done_bytes: int = 0
    errors: int = 0

    def as_json(self) -> dict[str, int]:
        return {
            "tasksTotal": self.tasks_total,
            "tasksDone": self.tasks_done,
            "totalBytes": self.total_bytes,
            "doneBytes": self.done_bytes,
            "errors": self.errors,
        }


def tool_command(block: ToolBlock) -> str:
    """The searchable command of a tool call: its command line, pattern, path or query.

    The tool's name is left out: it would match every call of that tool and fill snippets
    with noise ("exec_command", "Bash") instead of what the call did."""
    value: Any = block.input
    parts: list[str] = []
    if isinstance(value, str):
        parts.append(value)
    elif isinstance(value, dict):
        for key in _COMMAND_KEYS:
            item = value.get(key)
            if isinstance(item, str):
                parts.append(item)
            elif isinstance(item, list):
                parts.append(" ".join(str(x) for x in item))
        if not parts:
            parts.extend(str(v) for v in value.values() if isinstance(v, str))
    return " ".join(parts)[:MAX_COMMAND_CHARS]


def message_texts(message: Message) -> tuple[str, str]:
    """(body, output) of one message as the index stores them (before CJK preparation)."""
    body: list[str] = [message.content] if message.content else []
    output: list[str] = []
    for block in message.blocks or ():
        if isinstance(block, TextBlock):
            if block.text != message.content:
                body.append(block.text)
        elif isinstance(block, PlanBlock):
            body.append(block.text)
        elif isinstance(block, ToolBlock):
            body.append(tool_command(block))
            if block.output:
                output.append(_clip(block.output))
    return "\n".join(body), "\n".join(output)


def _clip(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    return text[:_OUTPUT_HEAD] + "\n…\n" + text[-(MAX_OUTPUT_CHARS - _OUTPUT_HEAD) :]


def index_rows(messages: Iterable[Message]) -> list[Row]:
    """The rows stored for ``messages`` (empty messages are skipped)."""
    rows: list[Row] = []
    for message in messages:
        body, output = message_texts(message)
        if body or output:
            rows.append(
                (
                    message.index,
                    message.role,
                    message.created_at,
                    prepare_text(body),
                    prepare_text(output),
                )
            )
    return rows


_WORKER_STORES: dict[str, AgentStore] = {}


Parsed = tuple[str, int, list[Row], SessionSummary, bytes | None]
"""What a worker returns: (signature, byte offset, rows, summary, encoded turn table or
``None``) of one session."""


def parse_for_index(job: tuple[str, AgentHome, SessionSource]) -> Parsed:
    """Worker-process side of a parallel build: one session parsed and turned into rows, with
    the turn table the parse made (this process keeps it, so the session's first open is
    tail-first like that of a session parsed here)."""
    runtime, home, source = job
    store = _WORKER_STORES.get(runtime)
    if store is None:
        store = store_classes()[runtime](home)
        _WORKER_STORES[runtime] = store
    tables = TurnTables(capacity=1)
    entry = TranscriptEngine(capacity=1, tables=tables).read("job", store, source)
    table = tables.get("job")
    body = encode_table(table) if table is not None else None
    signature = entry.signature.encode()
    return signature, entry.offset, index_rows(entry.messages), entry.summary, body


class SearchIndexer:
    """Indexes LocalTasks into ``search_rows`` / ``search_fts`` (see the module contract)."""

    def __init__(
        self,
        db: ExecutorDatabase,
        stores: Mapping[str, AgentStore],
        cache_entries: int = 8,
        *,
        engine: TranscriptEngine | None = None,
        on_parse: OnParse | None = None,
    ) -> None:
        self.db = db
        self.stores = stores
        self.engine = engine if engine is not None else TranscriptEngine(capacity=cache_entries)
        self.on_parse = on_parse
        self._seen: dict[str, list[Message]] = {}
        self._seen_capacity = max(cache_entries, self.engine.capacity) * 2

    @property
    def stats(self) -> EngineStats:
        return self.engine.stats

    # -- planning -------------------------------------------------------------------------
    def pending(self) -> list[sqlite3.Row]:
        """Tasks whose title or source changed since they were indexed (stat only)."""
        rows = (
            self.db.read()
            .execute(
                "SELECT t.local_task_id, t.runtime, t.session_key, t.runtime_handle, t.source_path,"
                " t.title, t.title_override, t.workspace_path, p.signature AS indexed_signature,"
                " p.title AS indexed_title, p.error AS indexed_error"
                " FROM local_tasks t LEFT JOIN search_progress p USING (local_task_id)"
                " WHERE t.deleted_at IS NULL ORDER BY t.updated_at DESC"
            )
            .fetchall()
        )
        out = []
        for row in rows:
            title = row["title_override"] or row["title"]
            old = FileSignature.decode(row["indexed_signature"])
            path = row["source_path"]
            unchanged = old is not None and path and stat_matches(old, Path(path))
            unreadable = row["runtime"] not in self.stores and row["indexed_error"]
            if unreadable and title == row["indexed_title"]:
                continue  # no store for it: its title is indexed, nothing more to read
            if not unchanged or title != row["indexed_title"]:
                out.append(row)
        return out

    def sync(
        self,
        progress: Callable[[IndexProgress], None] | None = None,
        workers: int = 0,
        parallel_min_bytes: int = PARALLEL_MIN_BYTES,
    ) -> IndexProgress:
        """Bring the index up to date; ``progress`` is called after each task."""
        self.drop_orphans()
        todo = self.pending()
        state = IndexProgress(tasks_total=len(todo))
        sizes = [source_size(row["source_path"]) for row in todo]
        state.total_bytes = sum(sizes)
        if progress:
            progress(state)

        def done(ok: bool, size: int) -> None:
            state.errors += not ok
            state.tasks_done += 1
            state.done_bytes += size
            if progress:
                progress(state)

        if workers > 1 and state.total_bytes >= parallel_min_bytes:
            todo, sizes = self._parallel(todo, sizes, workers, done)
        for row, size in zip(todo, sizes, strict=True):
            done(self.index_task(row), size)
        return state

    def _parallel(
        self,
        todo: list[sqlite3.Row],
        sizes: list[int],
        workers: int,
        done: Callable[[bool, int], None],
    ) -> tuple[list[sqlite3.Row], list[int]]:
        """Parse fresh, file-backed sessions in worker processes; returns what is left."""
        jobs: dict[str, tuple[sqlite3.Row, int, tuple[str, AgentHome, SessionSource]]] = {}
        rest: list[tuple[sqlite3.Row, int]] = []
        for row, size in zip(todo, sizes, strict=True):
            source = self._source(row)
            store = self.stores.get(row["runtime"])
            if source is None or store is None or row["indexed_signature"] is not None:
                rest.append((row, size))
            else:
                jobs[row["local_task_id"]] = (row, size, (row["runtime"], store.home, source))
        batch: list[tuple[sqlite3.Row, int, Parsed]] = []
        batch_bytes = 0
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            futures = {pool.submit(parse_for_index, job[2]): key for key, job in jobs.items()}
            for future in as_completed(futures):
                row, size, _ = jobs[futures[future]]
                try:
                    parsed = future.result()
                except Exception:  # parse failed in the worker: retry here, records the error
                    rest.append((row, size))
                    continue
                batch.append((row, size, parsed))
                batch_bytes += size
                if batch_bytes >= BATCH_BYTES:
                    self._write_batch(batch, done)
                    batch, batch_bytes = [], 0
        self._write_batch(batch, done)
        return [r for r, _ in rest], [s for _, s in rest]

    def _write_batch(
        self, batch: list[tuple[sqlite3.Row, int, Parsed]], done: Callable[[bool, int], None]
    ) -> None:
        """Write the rows of the sessions the workers parsed, several in one transaction
        (FTS5 writes its new postings as a segment at every commit: fewer, larger segments
        mean less merging)."""
        if not batch:
            return
        with self.db.write() as conn:
            for row, _, (signature, offset, rows, _, _) in batch:
                title = row["title_override"] or row["title"] or ""
                _write_rows(conn, row["local_task_id"], title, signature, 0, rows, offset=offset)
        for row, size, (signature, _, _, summary, table) in batch:
            self.stats.bytes_read += size
            self.stats.full_parses += 1
            self._keep_table(row["local_task_id"], table)
            decoded = FileSignature.decode(signature)
            if self.on_parse is not None and decoded is not None:
                self.on_parse(row["local_task_id"], summary, decoded)
            done(True, size)

    def _keep_table(self, task_id: str, body: bytes | None) -> None:
        """Keep a worker's turn table where this engine's own parses keep theirs."""
        tables = self.engine.tables
        table = decode_table(body) if body is not None else None
        if tables is not None and table is not None and table.is_consistent():
            tables.put(task_id, table)

    # -- one task -------------------------------------------------------------------------
    def index_task(self, row: sqlite3.Row) -> bool:
        """Index one task row (from :meth:`pending`); False when its source failed."""
        task_id = row["local_task_id"]
        title = row["title_override"] or row["title"] or ""
        store = self.stores.get(row["runtime"])
        source = self._source(row)
        if store is None or source is None:
            self._record_error(task_id, title, "", "no reader for this task")
            return False
        try:
            parses = self.engine.stats.full_parses
            entry = self.engine.read(task_id, store, source)
        except (OSError, ValueError, TypeError) as exc:
            self._record_error(task_id, title, row["indexed_signature"] or "", str(exc))
            return False
        if self.on_parse is not None and self.engine.stats.full_parses != parses:
            self.on_parse(task_id, entry.summary, entry.signature)
        fresh = row["indexed_signature"] is None or bool(row["indexed_error"])
        self._index_entry(task_id, title, entry, fresh)
        return True

    def index_parsed(self, task_id: str, entry: CachedTranscript) -> bool:
        """Index ``entry``, a full read of the task this indexer's engine just made for
        someone else (the executor's background indexer), unless the index already holds
        that signature; ``False`` when nothing was written."""
        row = (
            self.db.read()
            .execute(
                "SELECT t.title, t.title_override, p.signature, p.title AS indexed_title,"
                " p.error FROM local_tasks t LEFT JOIN search_progress p USING (local_task_id)"
                " WHERE t.local_task_id = ? AND t.deleted_at IS NULL",
                (task_id,),
            )
            .fetchone()
        )
        if row is None or entry.base != 0:
            return False
        title = row["title_override"] or row["title"] or ""
        signature = entry.signature.encode()
        if row["signature"] == signature and row["indexed_title"] == title and not row["error"]:
            return False
        self._index_entry(task_id, title, entry, row["signature"] is None or bool(row["error"]))
        return True

    def _index_entry(self, task_id: str, title: str, entry: CachedTranscript, fresh: bool) -> None:
        """Write the rows of ``entry`` from its first message that changed since this
        indexer last saw the task (all of them when ``fresh``)."""
        previous = self._seen.get(task_id, [])
        start = 0 if fresh else _first_changed(previous, entry.messages)
        self._seen[task_id] = list(entry.messages)
        if len(self._seen) > self._seen_capacity:
            self._seen.pop(next(iter(self._seen)))
        rows = index_rows(entry.messages[start:])
        signature = entry.signature.encode()
        with self.db.write() as conn:
            _write_rows(conn, task_id, title, signature, start, rows, offset=entry.offset)

    @staticmethod
    def _source(row: sqlite3.Row) -> SessionSource | None:
        if not row["source_path"]:
            return None
        return SessionSource(
            runtime=row["runtime"],
            session_id=row["session_key"],
            path=Path(row["source_path"]),
            runtime_handle=_handle(row["runtime_handle"]),
            workspace_path=row["workspace_path"],
        )

    def _record_error(self, task_id: str, title: str, signature: str, error: str) -> None:
        """Keep only the task's title row and record why its source was not indexed."""
        with self.db.write() as conn:
            _write_rows(conn, task_id, title, signature, None, [], error=error)

    def forget(self, task_id: str) -> None:
        """Remove a task from the index (after a delete)."""
        self.engine.forget(task_id)
        self._seen.pop(task_id, None)
        with self.db.write() as conn:
            row = conn.execute(
                "SELECT task_seq FROM search_progress WHERE local_task_id = ?", (task_id,)
            ).fetchone()
            if row is not None and row[0] is not None:
                _delete_rows(conn, int(row[0]) << SEQ_SHIFT, from_index=0)
            conn.execute("DELETE FROM search_progress WHERE local_task_id = ?", (task_id,))

    def drop_orphans(self) -> int:
        """Forget indexed tasks that left the index; returns how many."""
        gone = [
            row[0]
            for row in self.db.read().execute(
                "SELECT p.local_task_id FROM search_progress p LEFT JOIN local_tasks t"
                " USING (local_task_id) WHERE t.local_task_id IS NULL"
            )
        ]
        for task_id in gone:
            self.forget(task_id)
        return len(gone)


def _write_rows(
    conn: sqlite3.Connection,
    task_id: str,
    title: str,
    signature: str,
    start: int | None,
    rows: list[Row],
    error: str | None = None,
    offset: int = 0,
) -> None:
    """Replace one task's title row and its message rows from ``start`` on (only the title
    when ``start`` is ``None``), inside the caller's write transaction."""
    rows = [r for r in rows if r[0] < MAX_MESSAGES]
    base = _task_seq(conn, task_id) << SEQ_SHIFT
    _delete_rows(conn, base, from_index=start)
    conn.execute(
        "INSERT INTO search_rows(id, local_task_id, message_index, role)"
        " VALUES (?, ?, NULL, 'title')",
        (base, task_id),
    )
    conn.execute(
        "INSERT INTO search_fts(rowid, body, output) VALUES (?, ?, '')",
        (base, prepare_text(title)),
    )
    conn.executemany(
        "INSERT INTO search_rows(id, local_task_id, message_index, role, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        [(base + 1 + r[0], task_id, r[0], r[1], r[2]) for r in rows],
    )
    conn.executemany(
        "INSERT INTO search_fts(rowid, body, output) VALUES (?, ?, ?)",
        [(base + 1 + r[0], r[3], r[4]) for r in rows],
    )
    conn.execute(
        "UPDATE search_progress SET signature = ?, byte_offset = ?, messages = ?,"
        " title = ?, indexed_at = ?, error = ? WHERE local_task_id = ?",
        (signature, offset, len(rows), title, now_iso(), error, task_id),
    )


def _task_seq(conn: sqlite3.Connection, task_id: str) -> int:
    """The task's id range number, allocated on its first indexing and kept afterwards."""
    row = conn.execute(
        "SELECT task_seq FROM search_progress WHERE local_task_id = ?", (task_id,)
    ).fetchone()
    if row is not None and row[0] is not None:
        return int(row[0])
    seq = int(
        conn.execute("SELECT coalesce(max(task_seq), 0) + 1 FROM search_progress").fetchone()[0]
    )
    conn.execute(
        "INSERT INTO search_progress(local_task_id, signature, indexed_at, task_seq)"
        " VALUES (?, '', ?, ?) ON CONFLICT(local_task_id) DO UPDATE SET task_seq = ?",
        (task_id, now_iso(), seq, seq),
    )
    return seq


def _delete_rows(conn: sqlite3.Connection, base: int, *, from_index: int | None) -> None:
    """Delete the title row, and the message rows from ``from_index`` on (when given)."""
    last = base + (1 << SEQ_SHIFT) - 1
    ranges = [(base, base)]
    if from_index is not None:
        ranges.append((base + 1 + from_index, last))
    for low, high in ranges:
        conn.execute("DELETE FROM search_fts WHERE rowid BETWEEN ? AND ?", (low, high))
        conn.execute("DELETE FROM search_rows WHERE id BETWEEN ? AND ?", (low, high))


def _first_changed(previous: list[Message], current: list[Message]) -> int:
    for i, message in enumerate(current):
        if i >= len(previous) or previous[i] is not message:
            return i
    return len(current)


def source_size(path: str | None) -> int:
    """Bytes of a task's source file (its ``source_path``); 0 when unset or unreadable."""
    if not path:
        return 0
    try:
        return Path(path).stat().st_size
    except OSError:
        return 0


def _handle(text: str | None) -> dict[str, str]:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


__all__ = ["IndexProgress", "SearchIndexer", "message_texts", "sign", "tool_command"]
