"""Rename, archive and unarchive LocalTasks, and the archived list (RW-034, RW-157..172).

A task whose agent has a control facet that can do it (Codex's app-server, when ``codex`` is
installed) is renamed or archived by the agent itself; every other task gets hangar's override
columns in the index (``title_override``, ``archived_override``), which every list applies at
once, so an item never briefly disappears while an agent catches up (RW-167). Renaming
advances ``updatedAt`` (RW-034); archiving leaves it alone. A running task is never archived.

The archived list is ``{items, projectGroups[{projectKey, projectName, count}], total}``:
items are grouped by the Project's main directory (``groupWorkspacePath``), so worktrees of
one repository never form separate Projects (RW-166, RW-168); chats count under
``projectKey: null``.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from hangar.device import Device
from hangar.errors import NotFoundError, UsageError
from hangar.executor.controls import ControlBatch
from hangar.executor.database import ExecutorDatabase
from hangar.executor.trash import now_iso

MAX_TITLE_CHARS = 500
STALE_MARKER_TTL_DAYS = 30
STALE_MARKER_CAP = 2000


@dataclass
class Lifecycle:
    """What the operations need: the index and this device (controls come per batch)."""

    db: ExecutorDatabase
    device: Device

    def row(self, task_id: object) -> sqlite3.Row:
        if not isinstance(task_id, str) or not task_id:
            raise UsageError("localTaskId must be a non-empty string")
        row = (
            self.db.read()
            .execute(
                "SELECT * FROM local_tasks WHERE local_task_id = ? AND deleted_at IS NULL",
                (task_id,),
            )
            .fetchone()
        )
        if row is None:
            raise NotFoundError(kind="task", key=task_id)
        assert isinstance(row, sqlite3.Row)
        return row

    # -- rename -----------------------------------------------------------------------------
    def rename(self, task_id: object, title: object, controls: ControlBatch) -> dict[str, Any]:
        row = self.row(task_id)
        if not isinstance(title, str) or not title.strip():
            raise UsageError("title must be a non-empty string")
        name = " ".join(title.split())
        if len(name) > MAX_TITLE_CHARS:
            raise UsageError(f"title too long ({len(name)} characters, at most {MAX_TITLE_CHARS})")
        via = "index"
        control = controls.get(row["runtime"])
        if control is not None:
            done = control.rename(_handle(row), name)
            if done.done:
                via = done.via or row["runtime"]
        stamp = now_iso()
        with self.db.write() as conn:
            conn.execute(
                "UPDATE local_tasks SET title_override = ?, updated_at = ? WHERE local_task_id = ?",
                (name, stamp, row["local_task_id"]),
            )
        return {"localTaskId": row["local_task_id"], "title": name, "updatedAt": stamp, "via": via}

    # -- archive ----------------------------------------------------------------------------
    def set_archived(
        self, task_id: object, archived: bool, controls: ControlBatch
    ) -> dict[str, Any]:
        row = self.row(task_id)
        if archived and row["status"] == "running":
            raise UsageError(f"task {row['local_task_id']} is running; stop it before archiving")
        task = row["local_task_id"]
        via = "index"
        source = row["source_path"]
        agent_keeps_state = False
        control = controls.get(row["runtime"])
        if control is not None:
            path = Path(source) if source else None
            handle = _handle(row)
            done = control.archive(handle, path) if archived else control.unarchive(handle, path)
            if done.outcome == "missing":
                self._hide_stale(row)
                return {"localTaskId": task, "archived": False, "cleanupReason": "missing_rollout"}
            if done.done:
                via = done.via or row["runtime"]
                source = str(done.moved_to) if done.moved_to else source
                agent_keeps_state = control.keeps_archive_state
        # An agent that keeps the state itself (Codex: the rollout's folder) is the truth: no
        # override is kept that could later hide a change made in the agent; others get one.
        column = "archived" if agent_keeps_state else "archived_override"
        with self.db.write() as conn:
            conn.execute(
                f"UPDATE local_tasks SET {column} = ?, source_path = ? WHERE local_task_id = ?",
                (int(archived), source, task),
            )
            if agent_keeps_state:
                conn.execute(
                    "UPDATE local_tasks SET archived_override = NULL WHERE local_task_id = ?",
                    (task,),
                )
        return {"localTaskId": task, "archived": archived, "via": via}

    def _hide_stale(self, row: sqlite3.Row) -> None:
        """RW-171: a deletion marker (TTL, capped) and a tombstone; never shown as archived."""
        stamp = now_iso()
        with self.db.write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO stale_thread_markers(runtime, session_key, created_at)"
                " VALUES (?, ?, ?)",
                (row["runtime"], row["session_key"], stamp),
            )
            conn.execute(
                "DELETE FROM stale_thread_markers WHERE created_at <"
                " strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?)",
                (f"-{STALE_MARKER_TTL_DAYS} days",),
            )
            conn.execute(
                "DELETE FROM stale_thread_markers WHERE rowid NOT IN (SELECT rowid FROM"
                " stale_thread_markers ORDER BY created_at DESC LIMIT ?)",
                (STALE_MARKER_CAP,),
            )
            conn.execute(
                "UPDATE local_tasks SET deleted_at = ?, missing = 1 WHERE local_task_id = ?",
                (stamp, row["local_task_id"]),
            )

    def archive_where(self, controls: ControlBatch, project_key: str | None) -> dict[str, Any]:
        """Archive every unarchived, not running task (of one Project when ``project_key``)."""
        sql = (
            "SELECT local_task_id FROM local_tasks WHERE deleted_at IS NULL"
            " AND coalesce(archived_override, archived) = 0 AND status != 'running'"
        )
        params: list[str] = []
        if project_key is not None:
            sql += " AND group_workspace_path = ? AND workspace_kind != 'chat'"
            params.append(project_key)
        ids = [r[0] for r in self.db.read().execute(sql, params)]
        results = [self.set_archived(task_id, True, controls) for task_id in ids]
        archived = [r["localTaskId"] for r in results if r.get("archived")]
        stale = [r["localTaskId"] for r in results if r.get("cleanupReason")]
        return {"archived": archived, "missingRollout": stale, "count": len(archived)}

    # -- archived list ----------------------------------------------------------------------
    def archived_list(self, project_key: str | None = None) -> dict[str, Any]:
        rows = self.db.read().execute(
            "SELECT * FROM local_tasks WHERE deleted_at IS NULL"
            " AND coalesce(archived_override, archived) = 1"
            " AND NOT EXISTS (SELECT 1 FROM stale_thread_markers m"
            " WHERE m.runtime = local_tasks.runtime AND m.session_key = local_tasks.session_key)"
            " ORDER BY updated_at DESC, local_task_id"
        )
        items = [self._item(row) for row in rows]
        counts = Counter(item["projectKey"] for item in items)
        groups = [
            {"projectKey": key, "projectName": _project_name(key), "count": count}
            for key, count in sorted(counts.items(), key=lambda kv: (kv[0] is None, kv[0] or ""))
        ]
        if project_key is not None:
            items = [i for i in items if i["projectKey"] == project_key]
        return {"items": items, "projectGroups": groups, "total": len(items)}

    def _item(self, row: sqlite3.Row) -> dict[str, Any]:
        chat = row["workspace_kind"] == "chat"
        key = None if chat else (row["group_workspace_path"] or row["workspace_path"] or None)
        handle = _handle(row)
        return {
            "id": row["local_task_id"],
            "localTaskId": row["local_task_id"],
            "threadId": handle.get("threadId"),
            "title": row["title_override"] or row["title"] or "(untitled)",
            "projectKey": key,
            "projectName": _project_name(key),
            "workspacePath": row["workspace_path"],
            "workspaceKind": row["workspace_kind"],
            "deviceId": self.device.device_id,
            "deviceName": self.device.name,
            "runtime": row["runtime"],
            "runtimeHandle": handle,
            "source": "local",
            "createdAt": row["created_at"],
            "updatedAt": row["updated_at"],
        }


def _project_name(key: str | None) -> str:
    return PurePath(key).name or key if key else "Conversations"


def _handle(row: sqlite3.Row) -> dict[str, str]:
    try:
        value = json.loads(row["runtime_handle"] or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
