"""Helpers for lifecycle tests: LocalTask rows written straight into a real executor.db."""

from __future__ import annotations

import json
from pathlib import Path

from hangar.executor.database import ExecutorDatabase


def add_task(
    db: ExecutorDatabase,
    task_id: str,
    *,
    runtime: str = "claude",
    source: Path | None = None,
    title: str = "a task",
    workspace: str = "/projects/demo",
    group: str | None = None,
    kind: str = "workspace",
    archived: bool = False,
    status: str = "done",
    updated_at: str = "2026-11-01T10:00:00.000Z",
    handle: dict[str, str] | None = None,
) -> None:
    """Insert one LocalTask row as the index would."""
    with db.write() as conn:
        conn.execute(
            "INSERT INTO local_tasks(local_task_id, runtime, session_key, runtime_handle,"
            " source_path, title, workspace_path, group_workspace_path, workspace_kind,"
            " created_at, updated_at, archived, status) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                task_id,
                runtime,
                f"session-{task_id}",
                json.dumps(handle or {"sessionId": f"session-{task_id}"}),
                str(source) if source else None,
                title,
                workspace,
                group if group is not None else workspace,
                kind,
                "2026-11-01T09:00:00.000Z",
                updated_at,
                int(archived),
                status,
            ),
        )
