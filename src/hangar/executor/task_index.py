"""The LocalTask index in ``executor.db`` (DESIGN §4, RW-016..022, RW-033/034).

:meth:`TaskIndex.refresh` brings the index up to date with every store cheaply: it stats each
session file and asks the store to ``describe`` only new or changed ones (a re-list after
nothing changed opens no transcript). It runs in two steps: :meth:`TaskIndex.scan` does all
the file I/O (listing, stat, describe) and touches the database only to read, and
:meth:`TaskIndex.apply` writes what a scan found, with no file I/O, so a caller can hold a
lock around ``apply`` alone. Only regular files are described: a FIFO, socket or device file
under a session name is skipped (one warning per path for the life of the process), as is a
file that cannot be read. Each session gets a random ``localTaskId`` once, kept
for the life of the index and never derived from its path. A file that disappeared is
reported ``status: missing``. ``updatedAt`` comes from the session's content (its last
record's time), so reading a task never moves it; :meth:`TaskIndex.record_parse` stores what
a full read learned (title, message count, status, model) and never touches ``updatedAt``.

:meth:`TaskIndex.revision` is a counter that triggers move with every change to
``local_tasks`` (migration 0004): equal revisions mean an equal list.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hangar.agents.base import AgentStore, SessionSource, SessionSummary
from hangar.agents.registry import agent
from hangar.errors import AmbiguousError, NotFoundError, UsageError
from hangar.executor.database import ExecutorDatabase
from hangar.executor.workspaces import classify
from hangar.model import LocalTask
from hangar.regular_files import regular_stat, warn_once

log = logging.getLogger(__name__)

PENDING_PREFIX = "pending:"
"""The session key of a created task until the agent names its session."""
_STATUSES = {"running", "done", "failed", "cancelled", "missing"}


def stat_signature(path: Path) -> str | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return signature_of(st)


def signature_of(st: os.stat_result) -> str:
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"


@dataclass
class StoreScan:
    """What :meth:`TaskIndex.scan` found for one store, for :meth:`TaskIndex.apply`."""

    runtime: str
    changed: list[tuple[SessionSource, str | None]] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    """localTaskIds whose file is no longer listed."""
    titles: Mapping[str, str] = field(default_factory=dict)


@dataclass
class RefreshStats:
    described: int = 0
    unchanged: int = 0
    missing: int = 0
    unreadable: int = 0
    store_errors: dict[str, str] = field(default_factory=dict)
    """Stores whose listing failed (runtime → error); their tasks were left as they were."""


class TaskIndex:
    def __init__(self, db: ExecutorDatabase, device_id: str) -> None:
        self.db = db
        self.device_id = device_id
        self.last_refresh = RefreshStats()

    # -------------------------------------------------------------- refresh
    def refresh(self, stores: Iterable[AgentStore]) -> RefreshStats:
        """:meth:`scan` then :meth:`apply`."""
        scans, stats = self.scan(stores)
        self.apply(scans, stats)
        return stats

    def scan(self, stores: Iterable[AgentStore]) -> tuple[list[StoreScan], RefreshStats]:
        """Every store's new, changed and vanished sessions: file I/O, database reads only."""
        stats = RefreshStats()
        scans: list[StoreScan] = []
        for store in stores:
            try:
                scans.append(self._scan_store(store, stats))
            except Exception as exc:  # one broken agent store must not hide the others' tasks
                stats.store_errors[store.runtime] = f"{type(exc).__name__}: {exc}"
                warn_once(log, f"store:{store.runtime}:{exc}", "listing %s sessions failed: %s",
                          store.runtime, exc)  # fmt: skip
        return scans, stats

    def apply(self, scans: list[StoreScan], stats: RefreshStats) -> None:
        """Write what :meth:`scan` found (no file I/O)."""
        for scan in scans:
            try:
                self._apply_scan(scan, stats)
            except Exception as exc:  # as in scan(): the other stores' tasks still count
                stats.store_errors[scan.runtime] = f"{type(exc).__name__}: {exc}"
                log.warning("recording %s sessions failed: %s", scan.runtime, exc)
        self.last_refresh = stats

    def _scan_store(self, store: AgentStore, stats: RefreshStats) -> StoreScan:
        known = {
            row["source_path"]: row
            for row in self.db.read().execute(
                "SELECT local_task_id, source_path, stat_signature, missing FROM local_tasks"
                " WHERE runtime = ? AND source_path IS NOT NULL",  # a created task's file
                # may not exist yet: it is not missing
                (store.runtime,),
            )
        }
        paths = store.session_paths()
        seen: set[str] = set()
        scan = StoreScan(store.runtime)
        if paths is None:
            for source in store.discover():
                seen.add(str(source.path))
                scan.changed.append((source, stat_signature(source.path)))
        else:
            for path in paths:
                key = str(path)
                seen.add(key)
                st = regular_stat(key)
                if st is None:
                    # lstat only: a FIFO named *.jsonl would block the first open() forever.
                    stats.unreadable += 1
                    warn_once(log, key, "skipping %s: not a regular file", path)
                    continue
                signature = signature_of(st)
                row = known.get(key)
                if row is not None and row["stat_signature"] == signature:
                    stats.unchanged += 1
                    continue
                try:
                    described = store.describe(path)
                except Exception as exc:  # an unreadable file is skipped, never fatal
                    stats.unreadable += 1
                    why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
                    warn_once(log, key, "cannot describe %s: %s", path, why)
                    continue
                if described is not None:
                    scan.changed.append((described, signature))
        scan.gone = [
            str(row["local_task_id"])
            for key, row in known.items()
            if key not in seen and not row["missing"]
        ]
        scan.titles = store.session_titles()
        return scan

    def _apply_scan(self, scan: StoreScan, stats: RefreshStats) -> None:
        with self.db.write() as conn:
            for source, signature in scan.changed:
                stats.described += 1
                self._upsert(conn, source, signature)
            for local_task_id in scan.gone:
                stats.missing += 1
                conn.execute(
                    "UPDATE local_tasks SET missing = 1, status = 'missing'"
                    " WHERE local_task_id = ?",
                    (local_task_id,),
                )
            for session_id, title in scan.titles.items():
                conn.execute(
                    "UPDATE local_tasks SET title_override = ? WHERE runtime = ?"
                    " AND session_key = ? AND title_override IS NOT ?",
                    (title, scan.runtime, session_id, title),
                )

    def _upsert(
        self, conn: sqlite3.Connection, source: SessionSource, signature: str | None
    ) -> None:
        workspace = classify(source.workspace_path)
        updated = source.updated_at or source.created_at or ""
        created = source.created_at or updated
        row = conn.execute(
            "SELECT local_task_id, status FROM local_tasks WHERE runtime = ? AND session_key = ?",
            (source.runtime, source.session_id),
        ).fetchone()
        values = (
            json.dumps(source.runtime_handle, sort_keys=True),
            str(source.path),
            signature,
            source.parent_session_id,
            source.title or "",
            workspace.workspace_path,
            workspace.group_workspace_path,
            workspace.kind,
            workspace.worktree_id,
            created,
            updated,
            int(source.archived),
            source.model,
        )
        told = source.status if source.status in _STATUSES else None  # from the tail
        if row is None:
            conn.execute(
                "INSERT INTO local_tasks (runtime_handle, source_path, stat_signature,"
                " parent_session_key, title, workspace_path, group_workspace_path,"
                " workspace_kind, worktree_id, created_at, updated_at, archived, model,"
                " local_task_id, runtime, session_key, status)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*values, uuid.uuid4().hex, source.runtime, source.session_id, told or "done"),
            )
            return
        status = told or ("done" if row["status"] == "missing" else row["status"])
        conn.execute(
            "UPDATE local_tasks SET runtime_handle = ?, source_path = ?, stat_signature = ?,"
            " parent_session_key = ?, title = CASE WHEN ? = '' THEN title ELSE ? END,"
            " workspace_path = ?, group_workspace_path = ?, workspace_kind = ?, worktree_id = ?,"
            " created_at = ?, updated_at = ?, archived = ?, model = coalesce(?, model),"
            " missing = 0, status = ? WHERE local_task_id = ?",
            (
                *values[:4],
                values[4],
                values[4],
                *values[5:],
                status,
                row["local_task_id"],
            ),
        )

    # ---------------------------------------------------------------- created tasks
    def register_created(
        self,
        local_task_id: str,
        runtime: str,
        workspace_path: str,
        title: str,
        stamp: str,
        status: str = "running",
    ) -> None:
        """Record a task hangar is creating, under the client's ``localTaskId``, before the
        agent has a session for it (it lists at once, RW-274). Its session key is provisional
        until :meth:`link_session`."""
        workspace = classify(workspace_path)
        with self.db.write() as conn:
            taken = conn.execute(
                "SELECT 1 FROM local_tasks WHERE local_task_id = ?", (local_task_id,)
            ).fetchone()
            if taken is not None:
                raise UsageError(f"task id {local_task_id} is taken; generate a new one")
            conn.execute(
                "INSERT INTO local_tasks (local_task_id, runtime, session_key, runtime_handle,"
                " title, workspace_path, group_workspace_path, workspace_kind, worktree_id,"
                " created_at, updated_at, status) VALUES (?, ?, ?, '{}', ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    local_task_id,
                    runtime,
                    PENDING_PREFIX + local_task_id,
                    title,
                    workspace.workspace_path,
                    workspace.group_workspace_path,
                    workspace.kind,
                    workspace.worktree_id,
                    stamp,
                    stamp,
                    status,
                ),
            )

    def knows(self, local_task_id: str) -> bool:
        """Whether any row (a deleted one too) has this ``localTaskId``."""
        found = self.db.read().execute(
            "SELECT 1 FROM local_tasks WHERE local_task_id = ?", (local_task_id,)
        )
        return found.fetchone() is not None

    def link_session(
        self,
        local_task_id: str,
        session_key: str,
        handle: Mapping[str, str],
        source_path: str | None = None,
    ) -> None:
        """Give a created task the agent's session: from now on the store's file of that
        session is this task (RW-278..281: kept in the index, so it survives a restart). A row
        the index made for the same session in the meantime is folded into this one.
        ``source_path``: the session's file, when the agent named it (read at once, before
        a scan finds it)."""
        with self.db.write() as conn:
            row = conn.execute(
                "SELECT runtime FROM local_tasks WHERE local_task_id = ?", (local_task_id,)
            ).fetchone()
            if row is None:
                return
            conn.execute(
                "DELETE FROM local_tasks WHERE runtime = ? AND session_key = ?"
                " AND local_task_id != ?",
                (row["runtime"], session_key, local_task_id),
            )
            conn.execute(
                "UPDATE local_tasks SET session_key = ?, runtime_handle = ?, stat_signature = NULL,"
                " source_path = coalesce(?, source_path) WHERE local_task_id = ?",
                (session_key, json.dumps(dict(handle), sort_keys=True), source_path,
                 local_task_id),
            )  # fmt: skip

    def unlinked_created(self) -> list[sqlite3.Row]:
        """Created tasks still waiting for their session's link (not failed, not deleted),
        oldest first."""
        return list(
            self.db.read().execute(
                "SELECT local_task_id, runtime, workspace_path, title, created_at"
                " FROM local_tasks WHERE session_key LIKE 'pending:%' AND status != 'failed'"
                " AND deleted_at IS NULL ORDER BY created_at, local_task_id"
            )
        )

    def session_keys_before(self, runtime: str, created_at: str) -> set[str]:
        """Session keys of ``runtime``'s rows created before ``created_at``: sessions that
        belong to an earlier task, never to a task registered at ``created_at``."""
        rows = self.db.read().execute(
            "SELECT session_key FROM local_tasks WHERE runtime = ? AND created_at < ?",
            (runtime, created_at),
        )
        return {str(row[0]) for row in rows}

    def creation_failed(self, local_task_id: str) -> None:
        with self.db.write() as conn:
            conn.execute(
                "UPDATE local_tasks SET status = 'failed' WHERE local_task_id = ?"
                " AND session_key LIKE 'pending:%'",
                (local_task_id,),
            )

    # ---------------------------------------------------------------- reads
    def revision(self) -> int:
        """The list revision: it moves whenever any row of ``local_tasks`` changes."""
        row = self.db.read().execute("SELECT revision FROM task_list_revision").fetchone()
        return int(row[0])

    def present_runtimes(self) -> set[str]:
        """Runtimes with tasks not (yet) marked missing: their stores must be listed even
        when the agent's home is gone, so those tasks become ``missing``."""
        rows = self.db.read().execute("SELECT DISTINCT runtime FROM local_tasks WHERE missing = 0")
        return {str(row[0]) for row in rows}

    def list(
        self, *, runtime: str | None = None, include_archived: bool = False
    ) -> list[LocalTask]:
        return [self._task(row) for row in self._listed_rows(runtime, include_archived)]

    def _listed_rows(self, runtime: str | None, include_archived: bool) -> sqlite3.Cursor:
        sql = "SELECT * FROM local_tasks WHERE parent_session_key IS NULL AND deleted_at IS NULL"
        args: list[object] = []
        if runtime:
            sql += " AND runtime = ?"
            args.append(runtime)
        if not include_archived:
            sql += " AND coalesce(archived_override, archived) = 0"
        sql += " ORDER BY updated_at DESC, local_task_id"
        return self.db.read().execute(sql, args)

    def get(self, local_task_id: str) -> LocalTask:
        return self._task(self.row(local_task_id))

    def row(self, local_task_id: str) -> sqlite3.Row:
        row = (
            self.db.read()
            .execute(
                "SELECT * FROM local_tasks WHERE local_task_id = ? AND deleted_at IS NULL",
                (local_task_id,),
            )
            .fetchone()
        )
        if row is None:
            raise NotFoundError(kind="task", key=local_task_id)
        return row  # type: ignore[no-any-return]

    def in_directory(self, path: str) -> tuple[LocalTask, ...]:
        """Every listed task (archived ones too) that ran in ``path`` or below it."""
        folder = path.rstrip("/")
        prefix = folder + "/"
        rows = self.db.read().execute(
            "SELECT * FROM local_tasks WHERE parent_session_key IS NULL AND deleted_at IS NULL"
            " AND (workspace_path = ? OR substr(workspace_path, 1, ?) = ?)"
            " ORDER BY updated_at DESC, local_task_id",
            (folder, len(prefix), prefix),
        )
        return tuple(self._task(row) for row in rows)

    def resolve(self, key: str) -> str:
        """A localTaskId from an id, a unique prefix of one, or the agent's session id."""
        conn = self.db.read()
        base = "SELECT local_task_id FROM local_tasks WHERE deleted_at IS NULL AND "
        exact = conn.execute(base + "local_task_id = ?", (key,)).fetchone()
        if exact:
            return str(exact[0])
        for clause, arg in (
            ("session_key = ?", key),
            ("local_task_id LIKE ?", key.replace("%", "").replace("_", "") + "%"),
            ("session_key LIKE ?", key.replace("%", "").replace("_", "") + "%"),
        ):
            rows = [str(r[0]) for r in conn.execute(base + clause, (arg,))] if key else []
            if len(rows) == 1:
                return rows[0]
            if len(rows) > 1:
                raise AmbiguousError(kind="task", key=key, candidates=tuple(rows))
        raise NotFoundError(kind="task", key=key)

    # --------------------------------------------------------------- writes
    def record_parse(
        self, local_task_id: str, summary: SessionSummary, signature: str | None = None
    ) -> None:
        """Store what a full read learned; ``updated_at`` is deliberately left alone.

        ``signature`` is the file's stat signature at that read: tasks whose current
        signature differs are :meth:`stale` (their counts need another read).
        """
        status = summary.status if summary.status in _STATUSES else "done"
        with self.db.write() as conn:
            conn.execute(
                "UPDATE local_tasks SET message_count = ?, status = ?,"
                " title = coalesce(?, title), model = coalesce(?, model),"
                " signature = coalesce(?, signature) WHERE local_task_id = ?",
                (
                    summary.message_count,
                    status,
                    summary.title,
                    summary.model,
                    signature,
                    local_task_id,
                ),
            )

    def stale(self, limit: int = 32) -> tuple[str, ...]:
        """Listed tasks whose file changed since their last full read, newest first."""
        rows = self.db.read().execute(
            "SELECT local_task_id FROM local_tasks WHERE missing = 0 AND deleted_at IS NULL"
            " AND parent_session_key IS NULL AND stat_signature IS NOT NULL"
            " AND (signature IS NULL OR signature != stat_signature)"
            " ORDER BY updated_at DESC LIMIT ?",
            (limit,),
        )
        return tuple(str(row[0]) for row in rows)

    def is_stale(self, local_task_id: str) -> bool:
        """True when the task's file changed since its last full read."""
        row = self.row(local_task_id)
        return bool(row["stat_signature"]) and row["signature"] != row["stat_signature"]

    def mark_missing(self, local_task_id: str) -> None:
        with self.db.write() as conn:
            conn.execute(
                "UPDATE local_tasks SET missing = 1, status = 'missing' WHERE local_task_id = ?",
                (local_task_id,),
            )

    def _task(self, row: sqlite3.Row) -> LocalTask:
        handle = json.loads(row["runtime_handle"])
        archived = row["archived_override"]
        return LocalTask(
            device_id=self.device_id,
            local_task_id=row["local_task_id"],
            runtime=row["runtime"],
            runtime_handle={str(k): str(v) for k, v in handle.items()},
            title=row["title_override"] or row["title"] or "(untitled)",
            workspace_path=row["workspace_path"],
            group_workspace_path=row["group_workspace_path"],
            workspace_kind=row["workspace_kind"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            archived=bool(row["archived"] if archived is None else archived),
            status="missing" if row["missing"] else row["status"],
            message_count=row["message_count"],
            worktree_id=row["worktree_id"],
            model=row["model"],
            session_id=row["session_key"],
            resume_command=_resume_command(row),
        )


def _resume_command(row: sqlite3.Row) -> str | None:
    record = agent(row["runtime"])
    if record is None:
        return None
    return record.resume_command(row["session_key"], row["workspace_path"] or None)
