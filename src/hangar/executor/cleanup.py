"""cleanup-preview and cleanup of archived LocalTasks' leftover files (RW-179..RW-183).

Targets are derived only from what the caller submitted (``localTaskId``s) and the index row of
each (its ``workspacePath``, ``workspaceKind``, ``runtimeHandle``), never from a scan:

* ``chat_workspace`` — a chat task's own directory under ``$HANGAR_HOME/chats/`` whose last
  segment is the task (its basename contains the ``localTaskId``);
* ``attachments`` — ``$HANGAR_HOME/attachments/<localTaskId>``;
* ``draft_attachment`` — each ``runtimeHandle.cleanupAttachments[].localPath`` that lies under
  ``$HANGAR_HOME/attachments/draft/``;
* ``session_log`` — ``$HANGAR_HOME/logs/tasks/<localTaskId>`` (file or directory);
* ``worktree`` — the hangar-managed worktree the task ran in (``runtime.worktrees``): removed
  through the worktree store, which writes its snapshot ref first and keeps the directory if
  that fails (status ``failed``). Refused while another task in it is unarchived or running,
  and for permanent worktrees; a worktree hangar does not manage is listed as ``skipped``.

Safety (:func:`check_target`): the path must not be, or pass through, a symlink; its resolved
form must lie strictly inside one managed root; it must not be any Project root known to the
index. Items that are not archived, are running, are deleted or were not submitted are
refused item by item (``status: refused`` with a reason). Removal moves the files into the
trash (restorable until purged) rather than unlinking them.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from hangar.errors import HangarError, UsageError
from hangar.executor import trash
from hangar.executor.database import ExecutorDatabase

MAX_ITEMS = 200


class WorktreeCleaner(Protocol):
    """The worktree store, as cleanup uses it."""

    def cleanup_target(self, workspace_path: str) -> tuple[Path, str | None] | None:
        """``(path, refusal)`` of the managed worktree a task ran in, else ``None``."""
        ...

    def remove_for_cleanup(self, path: Path) -> dict[str, Any]:
        """Snapshot, then remove; the snapshot's ``{ref, commit}``."""
        ...


@dataclass(frozen=True)
class ManagedRoots:
    """The directories cleanup may delete from, all inside ``$HANGAR_HOME``."""

    home: Path

    @property
    def chats(self) -> Path:
        return self.home / "chats"

    @property
    def attachments(self) -> Path:
        return self.home / "attachments"

    @property
    def drafts(self) -> Path:
        return self.home / "attachments" / "draft"

    @property
    def logs(self) -> Path:
        return self.home / "logs" / "tasks"

    @property
    def worktrees(self) -> Path:
        return self.home / "worktrees"


def _has_symlink(path: Path, root: Path) -> bool:
    """True when ``path`` or any directory between ``root`` and it is a symlink."""
    current = path
    while True:
        if current.is_symlink():
            return True
        if current == root or current.parent == current:
            return False
        current = current.parent


def check_target(path: Path, root: Path, project_roots: set[str]) -> str | None:
    """Why ``path`` may not be cleaned, or None when it is safe (see the module docstring)."""
    if not path.is_absolute() or ".." in path.parts:
        return "not a plain absolute path"
    if path == root or not path.is_relative_to(root):
        return "outside the managed directories"
    if root.is_symlink() or _has_symlink(path, root):
        return "path is or passes through a symlink"
    resolved_root = root.resolve()
    resolved = path.resolve()
    if resolved == resolved_root or not resolved.is_relative_to(resolved_root):
        return "outside the managed directories"
    if str(resolved) in project_roots or str(path) in project_roots:
        return "a Project root is never cleaned"
    if path.is_dir() and any(p.is_symlink() for p in path.rglob("*")):
        return "directory contains symlinks"
    return None


def _size(path: Path) -> int:
    if path.is_symlink() or not path.exists():
        return 0
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _targets(row: sqlite3.Row, roots: ManagedRoots) -> list[tuple[str, Path, Path]]:
    """(kind, path, root) candidates derived from one index row."""
    task_id = row["local_task_id"]
    out: list[tuple[str, Path, Path]] = []
    if row["workspace_kind"] == "chat" and row["workspace_path"]:
        chat = Path(row["workspace_path"])
        if task_id in chat.name:
            out.append(("chat_workspace", chat, roots.chats))
    if row["workspace_kind"] == "worktree" and row["workspace_path"]:
        out.append(("worktree", Path(row["workspace_path"]), roots.worktrees))
    out.append(("attachments", roots.attachments / task_id, roots.attachments))
    out.append(("session_log", roots.logs / task_id, roots.logs))
    try:
        handle = json.loads(row["runtime_handle"] or "{}")
    except ValueError:
        handle = {}
    drafts = handle.get("cleanupAttachments") if isinstance(handle, dict) else None
    for draft in drafts if isinstance(drafts, list) else []:
        local = (
            draft.get("localPath") or draft.get("local_path") if isinstance(draft, dict) else None
        )
        if isinstance(local, str) and local:
            out.append(("draft_attachment", Path(local), roots.drafts))
    return out


def _item_ids(payload: object) -> list[str]:
    if not isinstance(payload, dict):
        raise UsageError("payload must be an object")
    ids = payload.get("localTaskIds")
    items = payload.get("items")
    if ids is None and isinstance(items, list):
        ids = [i.get("localTaskId") if isinstance(i, dict) else None for i in items]
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
        raise UsageError("localTaskIds must be a non-empty list of task ids")
    if len(ids) > MAX_ITEMS:
        raise UsageError(f"at most {MAX_ITEMS} items per cleanup")
    return list(dict.fromkeys(ids))


def plan(
    db: ExecutorDatabase,
    roots: ManagedRoots,
    payload: object,
    worktrees: WorktreeCleaner | None = None,
) -> dict[str, Any]:
    """The cleanup preview: per item ``{localTaskId, status, reason?, targets[{kind, path,
    exists, bytes, status, reason?}]}`` plus ``counts`` and ``bytes`` of what would go."""
    ids = _item_ids(payload)
    conn = db.read()
    projects = {
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT group_workspace_path FROM local_tasks WHERE workspace_kind != 'chat'"
        )
        if r[0]
    } | {
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT workspace_path FROM local_tasks WHERE workspace_kind = 'workspace'"
        )
        if r[0]
    }
    items: list[dict[str, Any]] = []
    total_bytes = 0
    count = 0
    for task_id in ids:
        row = conn.execute(
            "SELECT * FROM local_tasks WHERE local_task_id = ?", (task_id,)
        ).fetchone()
        reason = _refusal(row)
        if reason is not None:
            items.append({"localTaskId": task_id, "status": "refused", "reason": reason})
            continue
        targets = []
        managed = worktrees.cleanup_target(row["workspace_path"]) if worktrees else None
        for kind, path, root in _targets(row, roots):
            if kind == "worktree" and managed is not None:
                continue
            exists = path.exists() or path.is_symlink()
            entry: dict[str, Any] = {"kind": kind, "path": str(path), "exists": exists}
            why = check_target(path, root, projects)
            if kind == "worktree":
                why = (
                    "not a worktree hangar manages; cleanup never removes it"
                    if worktrees is not None
                    else "worktrees are removed by runtime.worktrees.delete (snapshot first)"
                )
            if why is not None:
                entry.update(
                    bytes=0, status="skipped" if kind == "worktree" else "refused", reason=why
                )
            elif not exists:
                entry.update(bytes=0, status="absent")
            else:
                entry.update(bytes=_size(path), status="will_delete")
                total_bytes += entry["bytes"]
                count += 1
            targets.append(entry)
        if managed is not None:
            entry = _worktree_entry(*managed)
            total_bytes += entry["bytes"]
            count += entry["status"] == "will_delete"
            targets.append(entry)
        items.append({"localTaskId": task_id, "status": "ok", "targets": targets})
    return {"items": items, "counts": {"targets": count}, "bytes": total_bytes}


def _worktree_entry(path: Path, refusal: str | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"kind": "worktree", "path": str(path), "exists": path.exists()}
    if refusal is not None:
        entry.update(bytes=0, status="refused", reason=refusal)
    elif not entry["exists"]:
        entry.update(bytes=0, status="absent")
    else:
        entry.update(bytes=_size(path), status="will_delete", snapshot=True)
    return entry


def _refusal(row: sqlite3.Row | None) -> str | None:
    if row is None:
        return "unknown task"
    if row["deleted_at"] is not None:
        return "task is deleted"
    archived = row["archived_override"] if row["archived_override"] is not None else row["archived"]
    if not archived:
        return "task is not archived"
    if row["status"] == "running":
        return "task is running"
    return None


def run(
    db: ExecutorDatabase,
    roots: ManagedRoots,
    trash_root: Path,
    payload: object,
    worktrees: WorktreeCleaner | None = None,
) -> dict[str, Any]:
    """Clean what :func:`plan` marks ``will_delete``: files into one trash entry per item,
    a worktree through the worktree store (snapshot first)."""
    preview = plan(db, roots, payload, worktrees)
    removed = 0
    for item in preview["items"]:
        targets = [t for t in item.get("targets", []) if t["status"] == "will_delete"]
        if worktrees is not None:
            for target in [t for t in targets if t["kind"] == "worktree"]:
                targets.remove(target)
                try:
                    target["snapshot"] = worktrees.remove_for_cleanup(Path(target["path"]))
                except HangarError as exc:  # the directory is kept; say why
                    target.update(status="failed", reason=str(exc))
                    continue
                target["status"] = "deleted"
                removed += 1
        if not targets:
            continue
        files: list[Path] = []
        folders: list[Path] = []
        for target in targets:
            path = Path(target["path"])
            if path.is_dir():
                folders.append(path)
                files.extend(
                    p for p in sorted(path.rglob("*")) if p.is_file() and not p.is_symlink()
                )
            else:
                files.append(path)
        trash_id = f"cleanup-{item['localTaskId']}-{uuid.uuid4().hex[:8]}"
        manifest = trash.move_to_trash(
            trash_root, trash_id, files, {"localTaskId": item["localTaskId"], "cleanup": True}
        )
        for folder in folders:
            for directory in sorted((p for p in folder.rglob("*") if p.is_dir()), reverse=True):
                _rmdir_if_empty(directory)
            _rmdir_if_empty(folder)
        for target in targets:
            target["status"] = "deleted"
        item["trashId"] = manifest["trashId"]
        removed += len(targets)
    preview["counts"]["deleted"] = removed
    return preview


def _rmdir_if_empty(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.rmdir()
