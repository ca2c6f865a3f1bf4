"""Creating tasks (RW-272..296, ``docs/worktrees.md``).

* ``runtime.tasks.create {localTaskId, runtime, text, model, mode, workspacePath?, branch?,
  clientUserMessageId?}`` → ``{localTaskId, runtime, workspacePath, mode, worktreeId,
  status: "starting"}``; the first reply streams as ``runtime.turn`` events of that
  ``localTaskId``. ``bad_request`` for a directory the device does not report, a taken id or
  a model the agent does not offer; ``not_supported`` for an agent hangar cannot create with.
* ``runtime.agents.models {runtime}`` → ``{runtime, models[]}``: the models for a new task.
* ``runtime.projects.list {}`` → ``{projects[{workspacePath, name, git, branches[],
  currentBranch}], agents[]}``.
* ``runtime.projects.create {name}`` → ``{workspacePath, name}``: a new blank project
  ``~/Documents/<name>``, registered on this device; ``conflict`` when the name exists.
"""

from __future__ import annotations

from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import Handler
from hangar.executor.task_create import TaskCreator
from hangar.protocol import methods as m
from hangar.protocol.create import (
    AgentModels,
    AgentModelsRequest,
    CreateProject,
    CreateTask,
    ProjectCreated,
    ProjectList,
    ProjectsRequest,
    TaskCreated,
)
from hangar.protocol.turns import ModelInfo


def create(executor: ExecutorCore, request: CreateTask) -> TaskCreated:
    return TaskCreator(executor).create(request)


def agent_models(executor: ExecutorCore, request: AgentModelsRequest) -> AgentModels:
    offered = executor.turns.offered(request.runtime)
    return AgentModels(
        runtime=request.runtime,
        models=[
            ModelInfo(
                id=o.id,
                display_name=o.display_name,
                model_type=o.model_type,
                is_default=o.is_default,
                efforts=list(o.efforts),
            )
            for o in offered
        ],
    )


def create_project(executor: ExecutorCore, request: CreateProject) -> ProjectCreated:
    path = TaskCreator(executor).create_project(request.name)
    return ProjectCreated(workspace_path=str(path), name=path.name)


def projects(executor: ExecutorCore, request: ProjectsRequest) -> ProjectList:
    creator = TaskCreator(executor)
    return ProjectList(projects=creator.projects(), agents=creator.agents())


HANDLERS: dict[str, Handler] = {
    m.TASKS_CREATE.name: create,
    m.AGENTS_MODELS.name: agent_models,
    m.PROJECTS_LIST.name: projects,
    m.PROJECTS_CREATE.name: create_project,
}
