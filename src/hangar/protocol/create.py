"""Creating tasks on a device: ``runtime.tasks.create``, ``runtime.agents.models``,
``runtime.projects.list`` and ``runtime.projects.create`` (RW-272..296).

The client names the new task's ``localTaskId`` itself (it opens the task's page at once, with
the first message and a waiting state, RW-272..276); the executor refuses an id it already
knows. The task's directory is a device workspace the device itself reported, never a central
project id: ``current_workspace`` runs the agent in it, ``git_worktree`` prepares a managed
worktree of it first (on ``branch``, else the project's current branch), ``conversation`` has
no project (a chat folder of the user's home). The model rule is the send's (RW-119..121).
A new blank project is a new directory ``~/Documents/<name>`` (an existing name is refused,
never adopted, RW-292/293), registered on the device so it is offered as a project before it
has any task (RW-294..296; nothing is written to the hub).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from hangar.protocol.codec import Wire
from hangar.protocol.turns import ModelInfo, ModelSelection, Text
from hangar.protocol.worktrees import Branch, PathText

LocalTaskId = Annotated[str, msgspec.Meta(pattern="^[A-Za-z0-9][A-Za-z0-9_-]{7,63}$")]
Runtime = Annotated[str, msgspec.Meta(pattern="^[a-z][a-z0-9_-]{0,31}$")]
ProjectMode = Literal["current_workspace", "git_worktree", "conversation"]


class CreateTask(Wire):
    local_task_id: LocalTaskId
    runtime: Runtime
    text: Text
    model: ModelSelection | None = None
    mode: ProjectMode = "current_workspace"
    workspace_path: PathText | None = None
    """The project's directory as the device reported it (not for ``conversation``)."""
    branch: Branch | None = None
    """``git_worktree`` only: the branch the worktree starts from."""
    client_user_message_id: Annotated[str, msgspec.Meta(min_length=1, max_length=200)] | None = None


class TaskCreated(Wire, omit_defaults=False):
    local_task_id: str
    runtime: str
    workspace_path: str
    mode: ProjectMode
    worktree_id: str | None
    status: Literal["starting"] = "starting"


class AgentModelsRequest(Wire):
    runtime: Runtime


class AgentModels(Wire, omit_defaults=False):
    runtime: str
    models: list[ModelInfo]


class ProjectsRequest(Wire):
    pass


ProjectName = Annotated[
    str, msgspec.Meta(pattern="^[A-Za-z0-9][A-Za-z0-9 ._-]{0,99}$", max_length=100)
]


class CreateProject(Wire):
    name: ProjectName
    """The new directory's name under ``~/Documents`` (one path segment)."""


class ProjectCreated(Wire, omit_defaults=False):
    workspace_path: str
    name: str


class ProjectInfo(Wire, omit_defaults=False):
    workspace_path: str
    name: str
    git: bool
    branches: list[str]
    """Local branches, the current one first (empty outside git or on a detached HEAD)."""
    current_branch: str | None


class ProjectList(Wire, omit_defaults=False):
    projects: list[ProjectInfo]
    agents: list[str]
    """Agents this device can create tasks with."""
