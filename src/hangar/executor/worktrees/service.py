"""The worktree store of one executor: settings, prepare, list, delete, restore, prune.

* **prepare** creates ``<root>/<worktreeId>/<repositoryName>`` (RW-197) with
  ``git worktree add --detach`` at the base branch's commit (see :mod:`.source`), records it
  (``permanent`` when asked, RW-207; a permanent one is registered at once as a project of
  its own, RW-206), then runs automatic cleanup (RW-200);
* **list** groups the records by repository, each with the LocalTasks that ran in it (RW-198);
* **delete** archives the linked tasks, writes the snapshot ref, and only then removes the
  worktree through ``git worktree remove`` (RW-185/186/199); a failed snapshot keeps the
  directory and raises (RW-187);
* **restore** recreates the directory at its original path from the snapshot (RW-188/203);
* **prune** removes what :func:`.policy.decide` selects, each through delete.

Every writer holds the worktree's execution lease (:mod:`.lease`). Paths are checked by
:mod:`.safety` before git or the filesystem sees them. The user's main workspace is only ever
read: its working files, its index and its branches are never written (RW-189).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import msgspec

from hangar.errors import NotFoundError, UsageError
from hangar.executor.projects import register_project
from hangar.executor.trash import now_iso
from hangar.executor.worktrees import policy, snapshot
from hangar.executor.worktrees.errors import (
    RestoreError,
    SnapshotError,
    SourceNotGitError,
    UnsafePathError,
    WorktreeBusyError,
    WorktreeConflictError,
    WorktreeError,
    WorktreeInUseError,
)
from hangar.executor.worktrees.git import Git, GitFailed
from hangar.executor.worktrees.lease import hold_lease
from hangar.executor.worktrees.safety import (
    check_managed_path,
    check_root,
    check_worktree_id,
    is_within,
)
from hangar.executor.worktrees.source import inspect_source, resolve_base, resolve_commit
from hangar.executor.worktrees.store import (
    MAX_KEEP,
    Snapshot,
    StoreData,
    WorktreeFile,
    WorktreeRecord,
    WorktreeSettings,
)
from hangar.model import LocalTask


class TaskLookup(Protocol):
    """The executor's LocalTask index, as the worktree store needs it."""

    def refresh(self) -> None:
        """Pick up sessions that appeared or changed since the last look."""

    def in_directory(self, path: str) -> tuple[LocalTask, ...]:
        """Every task (archived ones too) that ran in ``path`` or below, with a current
        ``status`` (a task whose file changed is read again first)."""
        ...


Archiver = Callable[[list[str]], list[str]]
"""Archives the given tasks; returns the ids it archived."""


@dataclass
class WorktreeService:
    home: Path
    tasks: TaskLookup
    archive: Archiver | None = None

    def __post_init__(self) -> None:
        self.file = WorktreeFile(self.home)
        self.leases = self.file.folder / "leases"

    # -- settings ---------------------------------------------------------------------------
    def settings(self) -> dict[str, Any]:
        return self._settings_view(self.file.read().settings)

    def update_settings(
        self,
        *,
        root: str | None = None,
        auto_cleanup: bool | None = None,
        keep_count: int | None = None,
    ) -> dict[str, Any]:
        """Change the given settings (``root=""`` back to the default), then prune."""
        if root:
            check_root(root)
        if keep_count is not None and not 0 <= keep_count <= MAX_KEEP:
            raise UsageError(f"keepCount must be an integer from 0 to {MAX_KEEP}")
        auto, keep = auto_cleanup, keep_count
        with self.file.editing() as data:
            current = data.settings
            if root is not None and root.rstrip("/") != current.root:
                old = str(current.resolved_root(self.home))
                if old not in current.known_roots:
                    current.known_roots.append(old)  # RW-195: existing worktrees stay managed
                current.root = root.rstrip("/")
                new = str(current.resolved_root(self.home))
                current.known_roots = [r for r in current.known_roots if r != new]
            if auto is not None:
                current.auto_cleanup = auto
            if keep is not None:
                current.keep_count = keep
            settings = msgspec.structs.replace(current)
        view = self._settings_view(settings)
        view["pruned"] = self.prune(automatic=True)
        return view

    def _settings_view(self, settings: WorktreeSettings) -> dict[str, Any]:
        out: dict[str, Any] = msgspec.to_builtins(settings)
        out["resolvedRoot"] = str(settings.resolved_root(self.home))
        return out

    def roots(self, settings: WorktreeSettings | None = None) -> list[Path]:
        current = settings or self.file.read().settings
        return [current.resolved_root(self.home), *(Path(r) for r in current.known_roots)]

    # -- lease ------------------------------------------------------------------------------
    @contextlib.contextmanager
    def lease(self, worktree_id: str, purpose: str) -> Iterator[None]:
        """Hold the worktree's execution lease (one writer at a time)."""
        with hold_lease(self.leases, check_worktree_id(worktree_id), purpose):
            yield

    # -- prepare ----------------------------------------------------------------------------
    def prepare(
        self,
        source_path: str,
        worktree_id: str,
        branch: str | None = None,
        permanent: bool = False,
        commit: str | None = None,
    ) -> dict[str, Any]:
        """A detached worktree ``<root>/<worktree_id>/<repository name>`` of ``source_path``
        at ``branch`` (else the current branch), or at ``commit`` when given (a copied task's
        ``HEAD``, which no local branch may name)."""
        wid = check_worktree_id(worktree_id)
        source = inspect_source(source_path)
        settings = self.file.read().settings
        root = check_root(str(settings.resolved_root(self.home)))
        target = root / wid / source.name
        for inside in (source.repository_root, source.common_dir):
            if is_within(target, inside):
                raise UnsafePathError(
                    f"worktree root {root} lies inside the repository {inside}",
                    worktree_id=wid,
                    value=str(root),
                )
        base = resolve_base(source, branch) if commit is None else resolve_commit(source, commit)
        with self.lease(wid, "prepare"):
            if wid in self.file.read().worktrees:
                raise WorktreeConflictError(
                    f"worktree {wid} already exists", worktree_id=wid, path=str(target)
                )
            root.mkdir(parents=True, exist_ok=True)
            try:
                (root / wid).mkdir()
            except FileExistsError:
                raise WorktreeConflictError(
                    f"{root / wid} already exists; nothing was overwritten",
                    worktree_id=wid,
                    path=str(target),
                ) from None
            try:
                Git(source.path).run(
                    "worktree", "add", "--detach", str(target), base.commit,
                    what=f"git could not create the worktree from {base.branch}",
                )  # fmt: skip
            except GitFailed as exc:
                with contextlib.suppress(OSError):
                    (root / wid).rmdir()
                raise SourceNotGitError(
                    str(exc), worktree_id=wid, source_path=str(source.path)
                ) from None
            stamp = now_iso()
            record = WorktreeRecord(
                worktree_id=wid,
                path=str(target),
                repository_root=str(source.repository_root),
                common_dir=str(source.common_dir),
                repository_name=source.name,
                branch=base.branch,
                base_commit=base.commit,
                created_at=stamp,
                last_used_at=stamp,
                permanent=permanent,
            )
            with self.file.editing() as data:
                data.worktrees[wid] = record
            if permanent:  # listed while it exists (a removed one drops out, a restored returns)
                register_project(self.home, target)
        view = self._view(record, self.tasks.in_directory(record.path))
        return {"worktree": view, "path": str(target), "pruned": self.prune(automatic=True)}

    # -- list -------------------------------------------------------------------------------
    def list_worktrees(self) -> dict[str, Any]:
        self.tasks.refresh()
        data = self.file.read()
        groups: dict[str, dict[str, Any]] = {}
        newest_first = reversed(list(data.worktrees.values()))  # ties: the later record first
        for record in sorted(newest_first, key=lambda r: r.created_at, reverse=True):
            group = groups.setdefault(
                record.repository_root,
                {
                    "repositoryRoot": record.repository_root,
                    "repositoryName": record.repository_name,
                    "worktrees": [],
                },
            )
            group["worktrees"].append(self._view(record, self.tasks.in_directory(record.path)))
        return {
            "repositories": sorted(groups.values(), key=lambda g: str(g["repositoryRoot"])),
            "settings": self._settings_view(data.settings),
        }

    def _view(self, record: WorktreeRecord, tasks: tuple[LocalTask, ...]) -> dict[str, Any]:
        out: dict[str, Any] = msgspec.to_builtins(record)
        if record.state == "active" and not Path(record.path).is_dir():
            out["state"] = "missing"  # removed behind hangar's back, without a snapshot
        out["tasks"] = [
            {
                "localTaskId": t.local_task_id,
                "title": t.title,
                "runtime": t.runtime,
                "archived": t.archived,
                "status": t.status,
                "updatedAt": t.updated_at,
            }
            for t in tasks
        ]
        return out

    def record(self, worktree_id: object) -> WorktreeRecord:
        wid = check_worktree_id(worktree_id)
        found = self.file.read().worktrees.get(wid)
        if found is None:
            raise NotFoundError(kind="worktree", key=wid)
        return found

    def record_for_workspace(self, workspace_path: str) -> WorktreeRecord | None:
        """The managed worktree a task directory lies in, if any."""
        if not workspace_path:
            return None
        path = Path(workspace_path)
        for record in self.file.read().worktrees.values():
            if is_within(path, Path(record.path)):
                return record
        return None

    def _checked_path(self, record: WorktreeRecord, data: StoreData | None = None) -> Path:
        settings = (data or self.file.read()).settings
        return check_managed_path(
            Path(record.path), record.worktree_id, record.repository_name, self.roots(settings)
        )

    # -- delete -----------------------------------------------------------------------------
    def delete(self, worktree_id: object, *, archive_tasks: bool = True) -> dict[str, Any]:
        record = self.record(worktree_id)
        wid = record.worktree_id
        path = self._checked_path(record)
        with self.lease(wid, "delete"):
            record = self.record(wid)  # as it is now that no other writer can change it
            self.tasks.refresh()
            tasks = self.tasks.in_directory(record.path)
            running = tuple(t.local_task_id for t in tasks if t.status == "running")
            if running:
                raise WorktreeInUseError(
                    f"worktree {wid} has a running task; stop it first",
                    worktree_id=wid,
                    local_task_ids=running,
                )
            archived: list[str] = []
            if archive_tasks and self.archive is not None:
                archived = self.archive([t.local_task_id for t in tasks if not t.archived])
            if record.state == "snapshot" or not path.exists():
                return {"deleted": False, "archivedTaskIds": archived, **self._state(wid)}
            git = Git(path)
            self._check_is_worktree(record, git, path)
            written = snapshot.write(git, wid, path, now_iso())
            found = written.capture
            snap = Snapshot(
                ref=written.ref,
                commit=written.commit,
                head=written.head,
                created_at=now_iso(),
                files=found.files,
                ignored=found.ignored,
            )
            self._update(wid, snapshot=snap)  # recorded before anything is removed
            Git(Path(record.common_dir)).run(
                "worktree", "remove", "--force", str(path),
                what=f"snapshot {written.commit[:12]} was written, but git could not remove {path}",
            )  # fmt: skip
            with contextlib.suppress(OSError):
                path.parent.rmdir()
            self._update(wid, state="snapshot")
        return {"deleted": True, "archivedTaskIds": archived, **self._state(wid)}

    def _check_is_worktree(self, record: WorktreeRecord, git: Git, path: Path) -> None:
        """The directory must still be this repository's worktree: if its ``.git`` is gone,
        git would find an enclosing repository instead, and that is never snapshotted."""
        top = git.maybe("rev-parse", "--show-toplevel")
        common = git.maybe("rev-parse", "--path-format=absolute", "--git-common-dir")
        if top != str(path) or common is None or Path(common) != Path(record.common_dir):
            raise SnapshotError(
                worktree_id=record.worktree_id,
                path=str(path),
                reason=f"it is no longer a git worktree of {record.repository_root}",
            )

    def _state(self, wid: str) -> dict[str, Any]:
        record = self.record(wid)
        return {"worktree": self._view(record, self.tasks.in_directory(record.path))}

    def _update(self, wid: str, **changes: Any) -> WorktreeRecord:
        with self.file.editing() as data:
            record = msgspec.structs.replace(data.worktrees[wid], **changes)
            data.worktrees[wid] = record
            return record

    # -- restore ----------------------------------------------------------------------------
    def restore(self, worktree_id: object) -> dict[str, Any]:
        record = self.record(worktree_id)
        wid = record.worktree_id
        path = self._checked_path(record)
        with self.lease(wid, "restore"):
            record = self.record(wid)
            if record.state == "active":
                if path.is_dir():
                    return {"restored": False, "reason": "present", **self._state(wid)}
                raise RestoreError(
                    f"{path} is gone and has no snapshot to restore from",
                    worktree_id=wid,
                    path=str(path),
                )
            if path.exists() or path.is_symlink():
                raise WorktreeConflictError(
                    f"{path} exists; it is not overwritten by a restore",
                    worktree_id=wid,
                    path=str(path),
                )
            assert record.snapshot is not None
            path.parent.mkdir(parents=True, exist_ok=True)
            repo = Git(Path(record.common_dir))
            done = snapshot.restore(repo, wid, record.snapshot.commit, path)
            self._update(wid, state="active", last_used_at=now_iso())
        out = {"restored": True, "headRef": done.head_ref, "files": done.files}
        return {**out, **self._state(wid)}

    def restore_for_task(self, workspace_path: str) -> dict[str, Any] | None:
        """Bring back the snapshotted worktree a task ran in (on unarchive or a new message,
        RW-188/203); ``None`` when the task's directory is no removed managed worktree."""
        record = self.record_for_workspace(workspace_path)
        if record is None or record.state != "snapshot":
            return None
        return self.restore(record.worktree_id)

    # -- cleanup (runtime.tasks.cleanup) ----------------------------------------------------
    def cleanup_target(self, workspace_path: str) -> tuple[Path, str | None] | None:
        """The managed worktree an archived task ran in, with why cleanup may not remove it
        (``None`` when it may): every task in it must be archived and none running, and a
        permanent worktree is removed only through worktree management (RW-209)."""
        record = self.record_for_workspace(workspace_path)
        if record is None:
            return None
        path = Path(record.path)
        if record.state == "snapshot":
            return path, None  # already removed; its snapshot stays
        try:
            self._checked_path(record)
        except UnsafePathError as exc:
            return path, str(exc)
        if record.permanent:
            return path, "a permanent worktree is removed only through worktree management"
        for task in self.tasks.in_directory(record.path):
            if task.status == "running":
                return path, f"task {task.local_task_id} in this worktree is running"
            if not task.archived:
                return path, f"task {task.local_task_id} in this worktree is not archived"
        return path, None

    def remove_for_cleanup(self, path: Path) -> dict[str, Any]:
        record = self.record_for_workspace(str(path))
        if record is None or record.path != str(path):
            raise NotFoundError(kind="worktree", key=str(path))
        done = self.delete(record.worktree_id, archive_tasks=False)
        snap = done["worktree"].get("snapshot") or {}
        return {"ref": snap.get("ref"), "commit": snap.get("commit")}

    # -- prune ------------------------------------------------------------------------------
    def prune(self, *, automatic: bool = False) -> dict[str, Any]:
        """Remove the worktrees :func:`policy.decide` selects. Automatic runs (after prepare
        and settings changes) do nothing while ``autoCleanup`` is off; an explicit prune
        applies the same policy regardless."""
        data = self.file.read()
        if automatic and not data.settings.auto_cleanup:
            return {"removed": [], "errors": [], "skipped": "autoCleanup is off"}
        self.tasks.refresh()
        facts = []
        for record in data.worktrees.values():
            tasks = self.tasks.in_directory(record.path)
            facts.append(
                policy.PruneFacts(
                    worktree_id=record.worktree_id,
                    present=record.state == "active" and Path(record.path).is_dir(),
                    permanent=record.permanent,
                    last_used_at=record.last_used_at,
                    tasks=tuple(
                        policy.TaskFacts(t.archived, t.status == "running", t.updated_at)
                        for t in tasks
                    ),
                )
            )
        decisions = policy.decide(facts, data.settings.keep_count)
        removed: list[str] = []
        errors: list[dict[str, Any]] = []
        for wid, decision in decisions.items():
            if decision != "remove":
                continue
            try:
                self.delete(wid, archive_tasks=False)
            except WorktreeBusyError:
                decisions[wid] = "keep:busy"  # a writer has it: never removed under it
                continue
            except (WorktreeError, GitFailed) as exc:  # a failed snapshot: kept, reported
                errors.append({"worktreeId": wid, "code": exc.code, "message": str(exc)})
                decisions[wid] = f"keep:{exc.code}"
                continue
            removed.append(wid)
        return {"removed": removed, "errors": errors, "decisions": decisions}
