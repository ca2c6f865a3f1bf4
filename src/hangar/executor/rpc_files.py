"""``runtime.files.*``: a read-only view of a task's directory with git status (RW-248..252).

* ``runtime.files.list {workspacePath, localTaskId?, path?}`` → ``{workspacePath, path,
  entries[{name, kind: file|dir|symlink|other, size, target?}], truncated}``
* ``runtime.files.read {workspacePath, localTaskId?, path}`` → ``{workspacePath, path, size,
  binary, text, truncated}``
* ``runtime.files.status {workspacePath, localTaskId?}`` → ``{workspacePath, repository,
  branch, head, entries[{path, index, worktree, originalPath?}], truncated}``

The directory is the task's own (or a known project root), resolved as for a terminal
(:mod:`hangar.executor.tool_context`); git runs there, in the task's actual directory, even
when the task belongs to a project (RW-250). Errors: ``unsafe_path`` (400: absolute, ``..``,
a symlink on the way), ``not_a_file`` (400), ``not_found`` (404), and the tool context's.
"""

from __future__ import annotations

from hangar.executor import workspace_files as files
from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import Handler
from hangar.executor.tool_context import resolve_tool_context
from hangar.protocol import files as fl
from hangar.protocol import methods as m


def list_directory(executor: ExecutorCore, request: fl.FilesRequest) -> fl.FileListing:
    context = resolve_tool_context(executor, request.workspace_path, request.local_task_id)
    return files.list_directory(context.directory, request.path)


def read_file(executor: ExecutorCore, request: fl.FilesRequest) -> fl.FileContent:
    context = resolve_tool_context(executor, request.workspace_path, request.local_task_id)
    return files.read_file(context.directory, request.path)


def git_status(executor: ExecutorCore, request: fl.WorkspaceRef) -> fl.GitStatus:
    context = resolve_tool_context(executor, request.workspace_path, request.local_task_id)
    return files.git_status(context.directory)


HANDLERS: dict[str, Handler] = {
    m.FILES_LIST.name: list_directory,
    m.FILES_READ.name: read_file,
    m.FILES_STATUS.name: git_status,
}
