"""Where the workspace tools beside a task run: the terminal and the file view (RW-248..258).

A tool context is resolved on the device, from its own index, never from what a page
composes:

* with a ``localTaskId``, the directory is that LocalTask's own ``workspacePath`` — the one
  ``runtime.tasks.list`` reports, so a Codex worktree stays the worktree and is never taken
  for its project (RW-249). The request must name that same directory (a page that holds a
  stale path is told, not silently moved). The project it belongs to still comes along
  (``project_path``, RW-250), and a task without a project (a conversation) works the same
  as long as its directory is there (RW-251);
* without one, the directory must be a project root this device knows: the workspace or the
  group workspace of one of its listed tasks, or a project registered on it before any task
  ran there (a new blank project, a permanent worktree) (RW-257).

A directory that is gone is an error: a tool never falls back to ``$HOME`` or to another
directory (RW-254, RW-258).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from hangar.errors import HangarError
from hangar.executor.core import ExecutorCore
from hangar.executor.projects import registered_projects


@dataclass(eq=False)
class WorkspaceMismatchError(HangarError):
    """The request names another directory than the task's own."""

    code: ClassVar[str] = "workspace_mismatch"
    http_status: ClassVar[int] = 400


@dataclass(eq=False)
class UnknownWorkspaceError(HangarError):
    """Without a task, the directory is not a project root of this device."""

    code: ClassVar[str] = "unknown_workspace"
    http_status: ClassVar[int] = 404


@dataclass(eq=False)
class WorkspaceMissingError(HangarError):
    """The directory does not exist (any more) or is not a directory."""

    code: ClassVar[str] = "workspace_missing"
    http_status: ClassVar[int] = 404


@dataclass(frozen=True)
class ToolContext:
    directory: Path
    local_task_id: str | None
    project_path: str | None
    """The project the directory belongs to (a worktree's repository root), if any."""


def _same(a: str, b: str) -> bool:
    return bool(a) and a.rstrip("/") == b.rstrip("/")


def resolve_tool_context(
    executor: ExecutorCore, workspace_path: str, local_task_id: str | None
) -> ToolContext:
    """The directory a tool for ``local_task_id`` (or a project) works in; see the module."""
    if local_task_id is not None:
        task = executor.index.get(local_task_id)  # not_found for an unknown task
        if not task.workspace_path:
            raise WorkspaceMissingError(f"task {local_task_id} has no directory")
        if not _same(task.workspace_path, workspace_path):
            raise WorkspaceMismatchError(
                f"task {local_task_id} runs in {task.workspace_path}, not {workspace_path}"
            )
        folder = task.workspace_path.rstrip("/") or "/"
        project = task.group_workspace_path if task.workspace_kind != "chat" else None
    else:
        _, tasks = executor.listed()
        roots = {t.group_workspace_path.rstrip("/") for t in tasks if t.workspace_kind != "chat"}
        roots |= {t.workspace_path.rstrip("/") for t in tasks if t.workspace_path}
        roots |= {p.rstrip("/") for p in registered_projects(executor.settings.paths.home)}
        folder = workspace_path.rstrip("/") or "/"
        if folder not in roots:
            raise UnknownWorkspaceError(f"{workspace_path} is not a project of this device")
        project = folder
    path = Path(folder)
    if not path.is_dir():
        raise WorkspaceMissingError(
            f"the directory {folder} is not there (a removed worktree is restored on unarchive)"
        )
    return ToolContext(path, local_task_id, project or None)
