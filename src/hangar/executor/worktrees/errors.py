"""The worktree store's errors: each has a stable ``code`` the API and the UI can act on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from hangar.errors import HangarError


@dataclass(eq=False)
class WorktreeError(HangarError):
    """Something about one worktree (``worktree_id``) that cannot be done as asked."""

    worktree_id: str = ""
    code: ClassVar[str] = "worktree_error"
    http_status: ClassVar[int] = 400

    def details(self) -> dict[str, Any]:
        return {"worktreeId": self.worktree_id} if self.worktree_id else {}


@dataclass(eq=False)
class UnsafePathError(WorktreeError):
    """An id, root or path that could lead outside where hangar may write (traversal,
    symlinks, relative paths, control characters)."""

    value: str = ""
    code: ClassVar[str] = "unsafe_path"

    def details(self) -> dict[str, Any]:
        return {**super().details(), "value": self.value}


@dataclass(eq=False)
class SourceNotGitError(WorktreeError):
    """The project directory is not a usable git repository (or not on a branch)."""

    source_path: str = ""
    code: ClassVar[str] = "worktree_source_not_git"

    def details(self) -> dict[str, Any]:
        return {**super().details(), "sourcePath": self.source_path}


@dataclass(eq=False)
class DetachedHeadError(SourceNotGitError):
    """No explicit branch was given and the project is not on one: hangar never guesses
    (not git's default branch, never the literal ``HEAD``)."""

    code: ClassVar[str] = "worktree_detached_head"


@dataclass(eq=False)
class WorktreeConflictError(WorktreeError):
    """The id is taken or the target directory already exists: nothing was overwritten."""

    path: str = ""
    code: ClassVar[str] = "worktree_target_conflict"
    http_status: ClassVar[int] = 409

    def details(self) -> dict[str, Any]:
        return {**super().details(), "path": self.path}


@dataclass(eq=False)
class WorktreeBusyError(WorktreeError):
    """Another writer holds this worktree's execution lease."""

    holder: str = ""
    code: ClassVar[str] = "worktree_busy"
    http_status: ClassVar[int] = 409

    def render(self) -> str:
        who = f" ({self.holder})" if self.holder else ""
        return self.message or f"worktree {self.worktree_id} is in use by another writer{who}"

    def details(self) -> dict[str, Any]:
        return {**super().details(), "holder": self.holder}


@dataclass(eq=False)
class WorktreeInUseError(WorktreeError):
    """A linked task is running: the worktree is neither archived nor removed under it."""

    local_task_ids: tuple[str, ...] = ()
    code: ClassVar[str] = "worktree_in_use"
    http_status: ClassVar[int] = 409

    def details(self) -> dict[str, Any]:
        return {**super().details(), "localTaskIds": list(self.local_task_ids)}


@dataclass(eq=False)
class SnapshotError(WorktreeError):
    """The snapshot could not be written, so the worktree was kept exactly as it was."""

    path: str = ""
    reason: str = ""
    code: ClassVar[str] = "worktree_snapshot_failed"
    http_status: ClassVar[int] = 409

    def render(self) -> str:
        return (
            self.message
            or f"cannot snapshot worktree {self.worktree_id} ({self.path}): {self.reason};"
            " the directory was kept unchanged"
        )

    def details(self) -> dict[str, Any]:
        return {**super().details(), "path": self.path, "reason": self.reason}


@dataclass(eq=False)
class RestoreError(WorktreeError):
    """The worktree could not be brought back from its snapshot."""

    path: str = ""
    code: ClassVar[str] = "worktree_restore_failed"
    http_status: ClassVar[int] = 409

    def details(self) -> dict[str, Any]:
        return {**super().details(), "path": self.path}
