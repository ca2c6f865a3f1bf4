"""The executor's side of a git fork to another device (RW-306..312, RW-318).

Source: :meth:`TaskTransfer.source` (git facts of the task's workspace) and
:meth:`TaskTransfer.export` (the package: manifest with the task context, the agent's session
files through :meth:`~hangar.agents.control.AgentControl.session_files`, and the light patch
of :mod:`~hangar.executor.transfer.git_patch`). Exporting reads only: the source task, also
while it runs a turn, is left as it is (RW-300).

Target: :meth:`TaskTransfer.check` (same remote, reachable commits) and
:meth:`TaskTransfer.import_` — the checksum first, then a detached managed worktree with id
``transferId`` at the source's ``HEAD`` (a retry reuses it), the patch, the session files in
the agent's home, the agent's fork through ``lastTurnId`` working in the worktree, and the
copy registered under ``newLocalTaskId``. The worktree lives under the executor's worktree
root (``worktrees/<transferId>/<projectDir>``), never in the project's main directory, and
lists under the project like every managed worktree (RW-307..309). Session files that were
new here are archived through the agent afterwards, so only the copy lists as a task.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from hangar.errors import UsageError
from hangar.executor.task_copy import TaskCopier, copy_name
from hangar.executor.task_create import TaskCreator
from hangar.executor.transfer import git_patch
from hangar.executor.transfer.package import (
    BadPackage,
    build_package,
    open_package,
    sha256,
)
from hangar.protocol.copy import TaskCopied
from hangar.protocol.transfer import (
    CheckTarget,
    ExportRequest,
    ImportRequest,
    Package,
    SourceInfo,
    SourceRequest,
    TargetCheck,
)

if TYPE_CHECKING:
    from hangar.executor.core import ExecutorCore

SESSION = "session"


class TaskTransfer:
    def __init__(self, core: ExecutorCore) -> None:
        self.core = core

    # -- source -------------------------------------------------------------------------------
    def source(self, request: SourceRequest) -> SourceInfo:
        task = self.core.index.get(request.local_task_id)
        path = Path(task.workspace_path)
        if not path.is_dir() or not git_patch.is_git(path):
            return SourceInfo(
                local_task_id=task.local_task_id, runtime=task.runtime,
                workspace_path=task.workspace_path, project_dir=path.name, git=False,
                remote_url=None, head=None, base=None, local_commits=0,
            )  # fmt: skip
        remote, head, base, local = git_patch.source_facts(path)
        return SourceInfo(
            local_task_id=task.local_task_id, runtime=task.runtime,
            workspace_path=task.workspace_path, project_dir=path.name, git=True,
            remote_url=remote, head=head, base=base, local_commits=local,
        )  # fmt: skip

    def export(self, request: ExportRequest) -> Package:
        task = self.core.index.get(request.local_task_id)
        turns = self.core.turns
        target = turns.target(request.local_task_id)
        control = turns.control(target, "fork")
        TaskCopier(self.core).check_turn(request.local_task_id, request.last_turn_id)
        source_path = self.core.index.row(request.local_task_id)["source_path"]
        sessions = control.session_files(target.handle, Path(source_path) if source_path else None)
        path = Path(task.workspace_path)
        _, head, _, _ = git_patch.source_facts(path)
        files = {f"{SESSION}/{name}": file.read_bytes() for name, file in sessions.items()}
        files.update(git_patch.patch_files(path, request.base))
        manifest = {
            "transferId": request.transfer_id,
            "runtime": task.runtime,
            "title": task.title,
            "sourceLocalTaskId": task.local_task_id,
            "lastTurnId": request.last_turn_id,
            "handle": dict(target.handle),
            "projectDir": path.name,
            "git": {"head": head, "base": request.base},
        }
        data = build_package(manifest, files)
        return Package(
            transfer_id=request.transfer_id, data=data, sha256=sha256(data), members=sorted(files)
        )

    # -- target -------------------------------------------------------------------------------
    def _project(self, workspace_path: str) -> Path:
        project = os.path.normpath(workspace_path)
        if project not in TaskCreator(self.core).project_paths():
            raise UsageError(f"{workspace_path} is not a project this device reports")
        return Path(project)

    def check(self, request: CheckTarget) -> TargetCheck:
        project = self._project(request.workspace_path)
        is_git, remote, found = git_patch.check_target(project, request.remote_url, request.commits)
        return TargetCheck(
            workspace_path=str(project), git=is_git,
            same_remote=git_patch.same_remote(remote, request.remote_url),
            remote_url=remote, reachable=found,
        )  # fmt: skip

    def import_(self, request: ImportRequest) -> TaskCopied:
        opened = open_package(request.data, request.sha256)  # tampered: refused here
        manifest = opened.manifest
        new_id = request.new_local_task_id
        if self.core.index.knows(new_id):
            raise UsageError(f"task id {new_id} is taken; generate a new one")
        if manifest.get("transferId") != request.transfer_id:
            raise BadPackage("the package belongs to another transfer")
        runtime, last_turn = str(manifest.get("runtime")), str(manifest.get("lastTurnId"))
        control = self.core.control(runtime)
        if control is None or "fork" not in control.operations:
            from hangar.agents.control import ControlUnsupported

            raise ControlUnsupported(runtime=runtime, operation="fork")
        project = self._project(request.workspace_path)
        git = manifest.get("git") or {}
        head = str(git.get("head") or "")
        bundle = opened.files.get(git_patch.BUNDLE)
        if bundle is not None:
            git_patch.fetch_bundle(project, bundle, head)
        worktree = self._worktree(project, request.transfer_id, head)
        git_patch.apply_patch(
            worktree, opened.files.get(git_patch.DIFF), opened.under(git_patch.UNTRACKED)
        )
        imported = control.import_session_files(opened.under(SESSION))
        handle = {str(k): str(v) for k, v in (manifest.get("handle") or {}).items()}
        forked = control.fork(handle, last_turn, worktree)
        for session in imported:
            control.archive(session, None)  # the source's files: not a task of their own here
        title = copy_name(str(manifest.get("title") or ""))
        TaskCopier(self.core).register(new_id, runtime, str(worktree), title, forked)
        return TaskCopied(
            local_task_id=new_id,
            source_local_task_id=str(manifest.get("sourceLocalTaskId") or ""),
            runtime=runtime,
            workspace_path=str(worktree),
            last_turn_id=last_turn,
        )

    def _worktree(self, project: Path, transfer_id: str, head: str) -> Path:
        """The transfer's detached worktree at ``head`` (made now, or the one a retry made)."""
        service = self.core.worktrees
        for group in service.list_worktrees()["repositories"]:
            for item in group["worktrees"]:
                if item["worktreeId"] == transfer_id and Path(item["path"]).is_dir():
                    return Path(item["path"])
        prepared = service.prepare(str(project), transfer_id, commit=head)
        return Path(prepared["path"])
