"""Creating tasks on this device (RW-272..296): the new task's directory, its registration
under the client's ``localTaskId``, and the agent's first turn through its control facet.

* ``current_workspace``: the agent runs in the project's directory itself.
* ``git_worktree``: a managed worktree of the project is prepared first (its id is the task's
  ``localTaskId``; on ``branch``, else the project's current branch), and the agent runs there;
  the task lists under the project, as every worktree task does.
* ``conversation``: no project; a new chat folder ``~/Documents/Codex/<date>/<id>`` of the
  user's home.

The directory must be one the device itself reports as a project — a workspace of one of its
tasks, one of its managed worktrees' repositories, or a blank project created here
(``~/Documents/<name>``, registered in ``$HANGAR_HOME/projects.json``) — never an arbitrary
path. The
model is checked exactly as for a send (RW-119..121). The task is registered before the agent
starts, so it lists at once; the agent's session is linked to it as soon as the agent names
it (:meth:`~hangar.executor.task_index.TaskIndex.link_session`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from hangar.agents.control import ControlUnsupported
from hangar.agents.turns import ModelChoice, TurnRequest
from hangar.errors import HangarError, UsageError
from hangar.executor.projects import register_project, registered_projects
from hangar.executor.trash import now_iso
from hangar.executor.turns import TaskTarget
from hangar.executor.worktrees.git import Git
from hangar.paths import user_home
from hangar.protocol.create import CreateTask, ProjectInfo, TaskCreated

if TYPE_CHECKING:
    from hangar.executor.core import ExecutorCore

TITLE_CHARS = 80


@dataclass(eq=False)
class ProjectExists(HangarError):
    """The new project's directory exists already (HTTP 409 ``conflict``)."""

    path: str = ""
    code: ClassVar[str] = "conflict"
    http_status: ClassVar[int] = 409

    def details(self) -> dict[str, str]:
        return {"path": self.path}


def _title(text: str) -> str:
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return first[:TITLE_CHARS]


class TaskCreator:
    def __init__(self, core: ExecutorCore) -> None:
        self.core = core

    # -- projects -----------------------------------------------------------------------------
    def project_paths(self) -> list[str]:
        """Directories this device reports as projects: the workspaces its tasks ran in
        (a worktree's task counts for its repository) and its managed worktrees' repositories."""
        found: set[str] = set()
        for task in self.core.list_tasks(include_archived=True):
            if task.workspace_kind != "chat" and task.group_workspace_path:
                found.add(task.group_workspace_path)
        for group in self.core.worktrees.list_worktrees()["repositories"]:
            found.add(str(group["repositoryRoot"]))
        found.update(self.registered())
        return sorted(p for p in found if Path(p).is_dir())

    # -- blank projects (RW-292..296) ---------------------------------------------------------
    def registered(self) -> list[str]:
        """Blank projects created on this device (kept in its own home, never the hub's)."""
        return registered_projects(self.core.settings.paths.home)

    def create_project(self, name: str) -> Path:
        """``~/Documents/<name>``, new (an existing name is refused, never adopted), then
        registered so it is offered as a project before it has a task."""
        if name in (".", "..") or "/" in name:
            raise UsageError(f"{name!r} is not a directory name")
        documents = user_home(self.core._launcher_environ) / "Documents"
        documents.mkdir(parents=True, exist_ok=True)
        path = documents / name
        try:
            path.mkdir()
        except FileExistsError:
            raise ProjectExists(
                f"{path} already exists; choose another name (an existing directory is never "
                "taken over as a new project)",
                path=str(path),
            ) from None
        register_project(self.core.settings.paths.home, path)
        return path

    def projects(self) -> list[ProjectInfo]:
        return [project_info(path) for path in self.project_paths()]

    def agents(self) -> list[str]:
        """Registered agents whose control can create a task and whose CLI is installed."""
        from hangar.agents.registry import agents

        out = []
        for runtime, record in agents().items():
            if record.control is None:
                continue
            control = self.core.control(runtime)
            if control is None or "create" not in control.operations:
                continue
            if any(control.launcher.which(name) for name in record.executables):
                out.append(runtime)
        return out

    # -- create -------------------------------------------------------------------------------
    def create(self, request: CreateTask) -> TaskCreated:
        text = request.text
        if not text.strip():
            raise UsageError("a new task needs a first message")
        control = self.core.control(request.runtime)
        if control is None or "create" not in control.operations:
            raise ControlUnsupported(runtime=request.runtime, operation="create")
        selection = request.model
        choice = (
            ModelChoice(selection.model_id, selection.model_type, dict(selection.options))
            if selection is not None
            else None
        )
        turns = self.core.turns
        model = turns.check_model(request.runtime, control, choice)
        if self.core.index.knows(request.local_task_id):  # before any directory is made
            raise UsageError(f"task id {request.local_task_id} is taken; generate a new one")
        cwd, worktree_id = self._directory(request)
        local_task_id = request.local_task_id
        self.core.created_here.add(local_task_id)
        self.core.index.register_created(
            local_task_id, request.runtime, str(cwd), _title(text), now_iso()
        )
        turn_request = TurnRequest(text, model, (), request.client_user_message_id, cwd)

        def link(handle: dict[str, str]) -> None:
            key = handle.get("threadId") or handle.get("sessionId") or ""
            if key:
                self.core.index.link_session(local_task_id, key, handle)

        target = TaskTarget(local_task_id, request.runtime, {}, cwd)
        try:
            turns.create(target, turn_request, link)
        except BaseException:
            self.core.index.creation_failed(local_task_id)
            raise
        return TaskCreated(
            local_task_id=local_task_id,
            runtime=request.runtime,
            workspace_path=str(cwd),
            mode=request.mode,
            worktree_id=worktree_id,
        )

    def _directory(self, request: CreateTask) -> tuple[Path, str | None]:
        if request.mode == "conversation":
            if request.workspace_path:
                raise UsageError("a conversation has no project: leave workspacePath out")
            day = datetime.now(UTC).strftime("%Y-%m-%d")
            home = user_home(self.core._launcher_environ)
            chat = home / "Documents" / "Codex" / day / request.local_task_id
            chat.mkdir(parents=True, exist_ok=False)
            return chat, None
        if not request.workspace_path:
            raise UsageError(f"mode {request.mode} needs the project's workspacePath")
        project = os.path.normpath(request.workspace_path)
        if project not in self.project_paths():
            raise UsageError(
                f"{request.workspace_path} is not a project this device reports "
                "(open a task in it first, or pick one from the project list)"
            )
        if request.mode == "current_workspace":
            if request.branch:
                raise UsageError("a branch is chosen only for a git_worktree task")
            return Path(project), None
        prepared = self.core.worktrees.prepare(project, request.local_task_id, request.branch)
        return Path(prepared["path"]), request.local_task_id


def project_info(path: str) -> ProjectInfo:
    """A project with its local branches, the current one first."""
    git = Git(Path(path))
    inside = git.run("rev-parse", "--is-inside-work-tree", check=False)
    if inside.returncode != 0:
        return ProjectInfo(
            workspace_path=path, name=Path(path).name, git=False, branches=[], current_branch=None
        )
    current = git.run("symbolic-ref", "-q", "--short", "HEAD", check=False).stdout.decode().strip()
    listed = git.run("for-each-ref", "--format=%(refname:short)", "refs/heads", check=False)
    names = [n for n in listed.stdout.decode().splitlines() if n]
    branches = ([current] if current in names else []) + [n for n in names if n != current]
    return ProjectInfo(
        workspace_path=path,
        name=Path(path).name,
        git=True,
        branches=branches,
        current_branch=current or None,
    )
