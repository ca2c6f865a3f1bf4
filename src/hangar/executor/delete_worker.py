"""Two-phase delete of LocalTasks (RW-173..RW-177).

Phase one, :func:`request_delete` (in the caller's thread, fast): in one transaction every
task gets a tombstone (``local_tasks.deleted_at``), so lists and search hide it at once, and a
row in ``delete_queue``. Nothing on disk changes yet.

Phase two, :class:`DeleteWorker` (one background worker, one task at a time): the session's
files move into ``$HANGAR_HOME/trash/<localTaskId>/`` with a manifest (original paths, sizes,
sha256; see :mod:`hangar.executor.trash`). When the task's agent can delete the session itself
(its control facet: Codex's ``thread/delete``), the files are first *copied* into the trash and
then the agent deletes its session through its own interface (RW-162), awaited before the next
item (RW-175); otherwise the files are moved like any other file. Sessions stored inside a
shared database (no file of their own) are only hidden: their data stays where it is.

The queue lives in ``executor.db``: a worker killed at any point resumes with the item it was
on (moving files is idempotent), so progress survives a restart. :func:`restore` undoes a
delete until :func:`purge_task` (or :func:`purge_expired_tasks` after
``trash_retention_days``) removes the trash entry for good.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hangar.agents.control import AgentControl
from hangar.errors import NotFoundError, UsageError
from hangar.executor import trash
from hangar.executor.controls import ControlBatch, ControlOpener
from hangar.executor.database import ExecutorDatabase
from hangar.executor.trash import now_iso

log = logging.getLogger(__name__)
SLOW_DELETE_SECONDS = 5.0
BULK_BATCH = 8


def _task_row(conn: sqlite3.Connection, task_id: str) -> sqlite3.Row:
    row = conn.execute("SELECT * FROM local_tasks WHERE local_task_id = ?", (task_id,)).fetchone()
    if row is None:
        raise NotFoundError(kind="task", key=task_id)
    assert isinstance(row, sqlite3.Row)
    return row


def request_delete(
    db: ExecutorDatabase, task_ids: Sequence[str], batch_id: str | None = None
) -> dict[str, Any]:
    """Phase one: tombstone and enqueue ``task_ids`` (all or none; running tasks refused)."""
    if not task_ids or not all(isinstance(t, str) and t for t in task_ids):
        raise UsageError("localTaskIds must be a non-empty list of task ids")
    batch = batch_id or uuid.uuid4().hex
    stamp = now_iso()
    with db.write() as conn:
        for task_id in task_ids:
            row = _task_row(conn, task_id)
            if row["status"] == "running":
                raise UsageError(f"task {task_id} is running; stop it before deleting it")
            if row["deleted_at"] is not None:
                # Already deleted: only a failed phase two is queued again (a retry).
                conn.execute(
                    "UPDATE delete_queue SET state = 'pending', error = NULL, batch_id = ?"
                    " WHERE local_task_id = ? AND state = 'failed'",
                    (batch, task_id),
                )
                continue
            conn.execute(
                "UPDATE local_tasks SET deleted_at = ? WHERE local_task_id = ?", (stamp, task_id)
            )
            conn.execute(
                "INSERT INTO delete_queue(local_task_id, batch_id, state, enqueued_at)"
                " VALUES (?, ?, 'pending', ?) ON CONFLICT(local_task_id) DO UPDATE SET"
                " batch_id = excluded.batch_id, state = 'pending', error = NULL,"
                " enqueued_at = excluded.enqueued_at, finished_at = NULL",
                (task_id, batch, stamp),
            )
    return {"deleted": True, "batchId": batch, "cleanup": {"background": True}}


def delete_progress(db: ExecutorDatabase, batch_id: str | None = None) -> dict[str, Any]:
    """Counts by state (of one batch, or of the whole queue): survives restarts (RW-178)."""
    sql = "SELECT state, count(*) FROM delete_queue"
    params: tuple[str, ...] = ()
    if batch_id:
        sql += " WHERE batch_id = ?"
        params = (batch_id,)
    counts = dict(db.read().execute(sql + " GROUP BY state", params).fetchall())
    total = sum(counts.values())
    done = counts.get("done", 0) + counts.get("failed", 0)
    return {"batchId": batch_id, "total": total, "done": done, "byState": counts}


def session_files(row: sqlite3.Row) -> list[Path]:
    """The files that make up a session: its transcript file plus a same-named directory
    beside it (Claude keeps sub-agent transcripts in ``<sessionId>/subagents/``)."""
    if not row["source_path"]:
        return []
    path = Path(row["source_path"])
    if path.is_symlink() or not path.is_file() or path.suffix not in {".jsonl", ".json", ".zst"}:
        return []
    files = [path]
    stem = path.name.split(".")[0]
    folder = path.with_name(stem)
    if folder.is_dir() and not folder.is_symlink():
        files.extend(p for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink())
    return files


def _task_json(row: sqlite3.Row) -> dict[str, Any]:
    return {key: row[key] for key in row.keys()}  # noqa: SIM118 (sqlite3.Row)


class DeleteWorker:
    """Runs phase two for queued deletes, one at a time (see the module docstring)."""

    def __init__(
        self,
        db: ExecutorDatabase,
        trash_root: Path,
        open_control: ControlOpener | None = None,
        on_deleted: Callable[[str], None] | None = None,
        *,
        owns_controls: bool = True,
    ) -> None:
        self.db = db
        self.trash_root = trash_root
        self.open_control = open_control
        self.on_deleted = on_deleted
        self._controls = ControlBatch(self._open_control, owned=owns_controls)
        self._started = False
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._signal_lock = threading.Lock()
        self._run_lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def next_item(self) -> sqlite3.Row | None:
        """The item to work on: an interrupted ``running`` one first, then the oldest pending."""
        row: sqlite3.Row | None = (
            self.db.read()
            .execute(
                "SELECT * FROM delete_queue WHERE state IN ('running', 'pending')"
                " ORDER BY state = 'running' DESC, enqueued_at, local_task_id LIMIT 1"
            )
            .fetchone()
        )
        return row

    def run_one(self) -> bool:
        """Process one queued item; False when the queue is empty.

        One worker at a time per ``$HANGAR_HOME``: a thread lock within the process and an
        advisory lock file (``trash/.delete-worker.lock``, released by the kernel if the
        process dies) across processes, so a CLI and a running hub never work on one item
        together.
        """
        with self._run_lock, _worker_lock(self.trash_root):
            return self._run_one()

    def _run_one(self) -> bool:
        item = self.next_item()
        if item is None:
            return False
        task_id = item["local_task_id"]
        with self.db.write() as conn:
            conn.execute(
                "UPDATE delete_queue SET state = 'running', attempts = attempts + 1"
                " WHERE local_task_id = ?",
                (task_id,),
            )
        started = time.monotonic()
        try:
            method = self._delete(task_id)
        except Exception as exc:  # recorded on the item; the worker goes on
            log.warning("delete of %s failed: %s", task_id, exc)
            self._finish(task_id, "failed", None, str(exc) or type(exc).__name__)
            return True
        elapsed = time.monotonic() - started
        if elapsed > SLOW_DELETE_SECONDS:
            log.warning("slow delete of %s: %.1fs", task_id, elapsed)  # RW-176
        self._finish(task_id, "done", method, None)
        if self.on_deleted is not None:
            self.on_deleted(task_id)
        return True

    def _delete(self, task_id: str) -> str:
        row = (
            self.db.read()
            .execute("SELECT * FROM local_tasks WHERE local_task_id = ?", (task_id,))
            .fetchone()
        )
        if row is None:
            return "gone"
        # A manifest means an earlier attempt started (and maybe crashed mid-move): its file
        # list is the truth, not what is left on disk.
        resuming = (self.trash_root / task_id / "manifest.json").exists()
        files = [] if resuming else session_files(row)
        handle = _handle(row)
        control = self._controls.get(row["runtime"]) if handle else None
        if control is not None and control.can_delete(handle):
            trash.move_to_trash(
                self.trash_root, task_id, files, _task_json(row), keep_original=True
            )
            try:
                done = control.delete(handle)
            except Exception:
                # RW-176: never stack a second delete on an agent still busy with the first:
                # the control is dropped (a new one is opened for the retry).
                self._controls.forget(row["runtime"])
                raise
            if done.done:
                return done.via or f"{row['runtime']}-delete"
        entry = self.trash_root / task_id
        if (entry / "manifest.json").exists():
            if trash.read_manifest(entry).get("keepOriginal"):
                # Only a copy was taken for thread/delete, which is not available now: finish
                # as a move (each original still in place is dropped once its copy verifies).
                trash.convert_to_move(self.trash_root, task_id)
            trash.move_to_trash(self.trash_root, task_id, [], _task_json(row))
            return "trash"
        if not files:
            return "hidden"
        trash.move_to_trash(self.trash_root, task_id, files, _task_json(row))
        return "trash"

    def _finish(self, task_id: str, state: str, method: str | None, error: str | None) -> None:
        with self.db.write() as conn:
            conn.execute(
                "UPDATE delete_queue SET state = ?, method = ?, error = ?, finished_at = ?,"
                " trash_id = CASE WHEN ? NOT IN ('gone', 'hidden') THEN local_task_id"
                " END WHERE local_task_id = ?",
                (state, method, error, now_iso(), method, task_id),
            )

    def _open_control(self, runtime: str) -> AgentControl | None:
        return self.open_control(runtime) if self.open_control is not None else None

    def pending(self) -> int:
        """Items queued or interrupted (a previous run may have left some)."""
        row = (
            self.db.read()
            .execute("SELECT count(*) FROM delete_queue WHERE state IN ('pending', 'running')")
            .fetchone()
        )
        return int(row[0])

    def drain(self, progress: Callable[[dict[str, Any]], None] | None = None) -> int:
        """Process items until the queue is empty; returns how many were processed."""
        count = 0
        try:
            while not self._stop.is_set() and self.run_one():
                count += 1
                if progress is not None:
                    progress(delete_progress(self.db))
        finally:
            self._controls.close()
        return count

    # -- background thread ------------------------------------------------------------------
    def start(self) -> None:
        with self._signal_lock:
            if self._started:
                return
            self._started = True
        self._thread = threading.Thread(target=self._loop, name="hangar-delete", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Start the background thread if needed and let it look at the queue."""
        self.start()
        with self._signal_lock:
            self._idle.clear()
            self._wake.set()

    def wait_idle(self, timeout: float) -> bool:
        """Block until the background thread has found the queue empty after the last wake."""
        return self._idle.wait(timeout)

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            self.drain()
            with self._signal_lock:
                if not self._wake.is_set():
                    self._idle.set()
            self._wake.wait(60)


@contextmanager
def _worker_lock(trash_root: Path) -> Iterator[None]:
    trash_root.mkdir(parents=True, exist_ok=True)
    fd = os.open(trash_root / ".delete-worker.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _handle(row: sqlite3.Row) -> dict[str, str]:
    try:
        handle = json.loads(row["runtime_handle"] or "{}")
    except ValueError:
        return {}
    return handle if isinstance(handle, dict) else {}


def restore(db: ExecutorDatabase, trash_root: Path, task_id: str) -> dict[str, Any]:
    """Undo a delete: files back in place (hash-checked), tombstone cleared."""
    queued = (
        db.read()
        .execute("SELECT state FROM delete_queue WHERE local_task_id = ?", (task_id,))
        .fetchone()
    )
    if queued is not None and queued["state"] in ("pending", "running"):
        # Phase two has not finished: cancel it before anything moved further.
        with db.write() as conn:
            conn.execute("DELETE FROM delete_queue WHERE local_task_id = ?", (task_id,))
    manifest: dict[str, Any] | None = None
    if (trash_root / task_id / "manifest.json").exists():
        manifest = trash.restore(trash_root, task_id)
    if manifest is not None and manifest.get("task", {}).get("cleanup"):
        # A cleanup entry (files removed beside a task that still exists): the files are
        # back, and the task's row was never touched.
        return {
            "restored": True,
            "localTaskId": str(manifest.get("localTaskId") or task_id),
            "trashId": task_id,
            "files": [f["original"] for f in manifest["files"]],
        }
    with db.write() as conn:
        row = conn.execute(
            "SELECT 1 FROM local_tasks WHERE local_task_id = ?", (task_id,)
        ).fetchone()
        if row is None and manifest is None:
            raise NotFoundError(kind="deleted task", key=task_id)
        if row is None and manifest is not None:
            task = manifest["task"]
            columns = ", ".join(task)
            marks = ", ".join("?" for _ in task)
            conn.execute(
                f"INSERT INTO local_tasks({columns}) VALUES ({marks})", list(task.values())
            )
        conn.execute("UPDATE local_tasks SET deleted_at = NULL WHERE local_task_id = ?", (task_id,))
        conn.execute("DELETE FROM delete_queue WHERE local_task_id = ?", (task_id,))
        conn.execute("DELETE FROM search_progress WHERE local_task_id = ?", (task_id,))
    files = manifest["files"] if manifest else []
    return {"restored": True, "localTaskId": task_id, "files": [f["original"] for f in files]}


def purge_task(db: ExecutorDatabase, trash_root: Path, task_id: str) -> dict[str, Any]:
    """Remove a deleted task for good: its trash entry, queue item and index row."""
    row = (
        db.read()
        .execute("SELECT deleted_at FROM local_tasks WHERE local_task_id = ?", (task_id,))
        .fetchone()
    )
    if row is not None and row["deleted_at"] is None:
        raise UsageError(f"task {task_id} is not deleted; delete it before purging it")
    pending = (
        db.read()
        .execute(
            "SELECT state FROM delete_queue WHERE local_task_id = ? AND state IN"
            " ('pending', 'running')",
            (task_id,),
        )
        .fetchone()
    )
    if pending is not None:
        raise UsageError(f"task {task_id} is still being deleted; purge it afterwards")
    had_files = (trash_root / task_id).exists()
    if had_files:
        trash.purge(trash_root, task_id)
    if row is None and not had_files:
        raise NotFoundError(kind="deleted task", key=task_id)
    with db.write() as conn:
        conn.execute("DELETE FROM local_tasks WHERE local_task_id = ?", (task_id,))
        conn.execute("DELETE FROM delete_queue WHERE local_task_id = ?", (task_id,))
    return {"purged": True, "localTaskId": task_id}


def purge_expired_tasks(db: ExecutorDatabase, trash_root: Path, retention_days: int) -> list[str]:
    """Purge every trash entry older than ``retention_days`` (and its tombstoned row)."""
    purged = trash.purge_expired(trash_root, retention_days)
    with db.write() as conn:
        for task_id in purged:
            conn.execute(
                "DELETE FROM local_tasks WHERE local_task_id = ? AND deleted_at IS NOT NULL",
                (task_id,),
            )
            conn.execute("DELETE FROM delete_queue WHERE local_task_id = ?", (task_id,))
    return purged
