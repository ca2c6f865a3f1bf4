"""Every executor RPC by name, with its request and response types.

Both ends read this table: the executor to decode a JSON payload and dispatch, a link over a
wire to encode the request and decode the answer into the right type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hangar.protocol import copy as cp
from hangar.protocol import create as cr
from hangar.protocol import file_changes as fc
from hangar.protocol import files as fl
from hangar.protocol import run_log as rl
from hangar.protocol import tasks as t
from hangar.protocol import terminal as term
from hangar.protocol import transfer as tr
from hangar.protocol import turns as u
from hangar.protocol import usage as g
from hangar.protocol import worktrees as w


@dataclass(frozen=True)
class Method:
    name: str
    request: type[Any]
    response: type[Any]


def _methods(*items: Method) -> dict[str, Method]:
    return {m.name: m for m in items}


JsonObject = dict[str, Any]

TASKS_LIST = Method("runtime.tasks.list", t.ListTasks, t.TaskList)
TASKS_TRANSCRIPT = Method("runtime.tasks.transcript", t.TranscriptRequest, t.TranscriptPage)
TASKS_GLANCE = Method("runtime.tasks.glance", t.GlanceRequest, t.TranscriptPage)
TASKS_SEARCH = Method("runtime.tasks.search", t.SearchRequest, t.SearchResults)
TASKS_RENAME = Method("runtime.tasks.rename", t.RenameRequest, t.Renamed)
TASKS_ARCHIVE = Method("runtime.tasks.archive", t.TaskRef, t.ArchiveResult)
TASKS_UNARCHIVE = Method("runtime.tasks.unarchive", t.TaskRef, t.ArchiveResult)
TASKS_ARCHIVE_PROJECT = Method(
    "runtime.tasks.archive_project", t.ArchiveProjectRequest, t.ArchivedMany
)
TASKS_ARCHIVE_ALL = Method("runtime.tasks.archive_all", t.NoArguments, t.ArchivedMany)
TASKS_ARCHIVED_LIST = Method("runtime.tasks.archived_list", t.ArchivedListRequest, JsonObject)
TASKS_DELETE = Method("runtime.tasks.delete", t.TaskRef, t.DeleteAccepted)
TASKS_DELETE_BULK = Method("runtime.tasks.delete_bulk", t.DeleteBulkRequest, t.DeleteAccepted)
TASKS_DELETE_PROGRESS = Method(
    "runtime.tasks.delete_progress", t.DeleteProgressRequest, t.DeleteProgress
)
TASKS_RESTORE = Method("runtime.tasks.restore", t.TaskRef, t.Restored)
TASKS_PURGE = Method("runtime.tasks.purge", t.TaskRef, t.Purged)
TASKS_CLEANUP_PREVIEW = Method("runtime.tasks.cleanup_preview", t.TaskIdsRequest, JsonObject)
TASKS_CLEANUP = Method("runtime.tasks.cleanup", t.TaskIdsRequest, JsonObject)
TASKS_SEND = Method("runtime.tasks.send", u.SendRequest, u.TurnAccepted)
TASKS_CANCEL = Method("runtime.tasks.cancel", t.TaskRef, u.CancelResult)
TASKS_GUIDANCE = Method("runtime.tasks.guidance", u.GuidanceRequest, u.GuidanceResult)
TASKS_COMPACT = Method("runtime.tasks.compact", t.TaskRef, u.TurnAccepted)
TASKS_GOAL_GET = Method("runtime.tasks.goal.get", t.TaskRef, u.GoalResult)
TASKS_MODELS = Method("runtime.tasks.models", t.TaskRef, u.ModelList)
TASKS_ACTIVITY = Method("runtime.tasks.activity", u.ActivityRequest, u.Activity)
TASKS_APPROVAL_ANSWER = Method(
    "runtime.tasks.approval.answer", u.ApprovalAnswer, u.ApprovalAnswered
)
AGENTS_CONFIG_UPDATE = Method(
    "runtime.agents.config.update", u.AgentConfigUpdate, u.AgentConfigUpdated
)
INDEX_RUN = Method("runtime.index.run", t.NoArguments, t.IndexRun)
INDEX_STATUS = Method("runtime.index.status", t.NoArguments, t.IndexStatus)
WORKTREES_SETTINGS_GET = Method("runtime.worktrees.settings.get", t.NoArguments, JsonObject)
WORKTREES_SETTINGS_UPDATE = Method(
    "runtime.worktrees.settings.update", w.WorktreeSettingsUpdate, JsonObject
)
WORKTREES_PREPARE = Method("runtime.worktrees.prepare", w.PrepareWorktree, JsonObject)
WORKTREES_LIST = Method("runtime.worktrees.list", t.NoArguments, JsonObject)
WORKTREES_DELETE = Method("runtime.worktrees.delete", w.WorktreeRef, JsonObject)
WORKTREES_RESTORE = Method("runtime.worktrees.restore", w.WorktreeRef, JsonObject)
WORKTREES_PRUNE = Method("runtime.worktrees.prune", t.NoArguments, JsonObject)
TURN_FILE_CHANGES_REVIEW = Method(
    "runtime.tasks.turn_file_changes_review", fc.TurnFileChanges, JsonObject
)
TURN_FILE_CHANGES_REVERT = Method(
    "runtime.tasks.turn_file_changes_revert", fc.RevertTurnFileChanges, JsonObject
)
USAGE_SUMMARY = Method("runtime.usage.summary", g.UsageRequest, g.UsageReport)
TASKS_RUN_MESSAGES = Method("runtime.tasks.run_messages", rl.RunMessagesRequest, rl.RunMessagesPage)
TASKS_CREATE = Method("runtime.tasks.create", cr.CreateTask, cr.TaskCreated)
AGENTS_MODELS = Method("runtime.agents.models", cr.AgentModelsRequest, cr.AgentModels)
PROJECTS_LIST = Method("runtime.projects.list", cr.ProjectsRequest, cr.ProjectList)
PROJECTS_CREATE = Method("runtime.projects.create", cr.CreateProject, cr.ProjectCreated)
TASKS_COPY = Method("runtime.tasks.copy", cp.CopyTask, cp.TaskCopied)
TRANSFER_SOURCE = Method("runtime.transfer.source", tr.SourceRequest, tr.SourceInfo)
TRANSFER_CHECK = Method("runtime.transfer.check", tr.CheckTarget, tr.TargetCheck)
TRANSFER_EXPORT = Method("runtime.transfer.export", tr.ExportRequest, tr.Package)
TRANSFER_IMPORT = Method("runtime.transfer.import", tr.ImportRequest, cp.TaskCopied)
TRANSFER_OFFER = Method("runtime.transfer.offer", tr.OfferRequest, tr.ArchiveOffer)
TRANSFER_UPLOAD = Method("runtime.transfer.upload", tr.UploadRequest, tr.Uploaded)
TRANSFER_FETCH = Method("runtime.transfer.fetch", tr.FetchRequest, tr.ArchiveCopied)
TRANSFER_WITHDRAW = Method("runtime.transfer.withdraw", tr.WithdrawRequest, tr.Withdrawn)
TERMINAL_OPEN = Method("runtime.terminal.open", term.OpenTerminal, term.TerminalInfo)
TERMINAL_INPUT = Method("runtime.terminal.input", term.TerminalInput, term.Accepted)
TERMINAL_RESIZE = Method("runtime.terminal.resize", term.TerminalResize, term.Accepted)
TERMINAL_REPLAY = Method("runtime.terminal.replay", term.TerminalReplay, term.TerminalOutput)
TERMINAL_FLOW = Method("runtime.terminal.flow", term.TerminalFlow, term.Accepted)
TERMINAL_CLOSE = Method("runtime.terminal.close", term.TerminalRef, term.TerminalClosed)
TERMINAL_LIST = Method("runtime.terminal.list", t.NoArguments, term.TerminalList)
FILES_LIST = Method("runtime.files.list", fl.FilesRequest, fl.FileListing)
FILES_READ = Method("runtime.files.read", fl.FilesRequest, fl.FileContent)
FILES_STATUS = Method("runtime.files.status", fl.WorkspaceRef, fl.GitStatus)

METHODS: dict[str, Method] = _methods(
    TASKS_LIST,
    TASKS_TRANSCRIPT,
    TASKS_GLANCE,
    TASKS_SEARCH,
    TASKS_RENAME,
    TASKS_ARCHIVE,
    TASKS_UNARCHIVE,
    TASKS_ARCHIVE_PROJECT,
    TASKS_ARCHIVE_ALL,
    TASKS_ARCHIVED_LIST,
    TASKS_DELETE,
    TASKS_DELETE_BULK,
    TASKS_DELETE_PROGRESS,
    TASKS_RESTORE,
    TASKS_PURGE,
    TASKS_CLEANUP_PREVIEW,
    TASKS_CLEANUP,
    TASKS_SEND,
    TASKS_CANCEL,
    TASKS_GUIDANCE,
    TASKS_COMPACT,
    TASKS_GOAL_GET,
    TASKS_MODELS,
    TASKS_ACTIVITY,
    TASKS_APPROVAL_ANSWER,
    AGENTS_CONFIG_UPDATE,
    INDEX_RUN,
    INDEX_STATUS,
    WORKTREES_SETTINGS_GET,
    WORKTREES_SETTINGS_UPDATE,
    WORKTREES_PREPARE,
    WORKTREES_LIST,
    WORKTREES_DELETE,
    WORKTREES_RESTORE,
    WORKTREES_PRUNE,
    TURN_FILE_CHANGES_REVIEW,
    TURN_FILE_CHANGES_REVERT,
    USAGE_SUMMARY,
    TASKS_RUN_MESSAGES,
    TASKS_CREATE,
    AGENTS_MODELS,
    PROJECTS_LIST,
    PROJECTS_CREATE,
    TASKS_COPY,
    TRANSFER_SOURCE,
    TRANSFER_CHECK,
    TRANSFER_EXPORT,
    TRANSFER_IMPORT,
    TRANSFER_OFFER,
    TRANSFER_UPLOAD,
    TRANSFER_FETCH,
    TRANSFER_WITHDRAW,
    TERMINAL_OPEN,
    TERMINAL_INPUT,
    TERMINAL_RESIZE,
    TERMINAL_REPLAY,
    TERMINAL_FLOW,
    TERMINAL_CLOSE,
    TERMINAL_LIST,
    FILES_LIST,
    FILES_READ,
    FILES_STATUS,
)
