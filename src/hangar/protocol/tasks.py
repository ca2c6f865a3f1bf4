"""``runtime.tasks.*`` and ``runtime.index.*``: requests and responses (DESIGN §5).

Field names are snake_case here and camelCase on the wire (``localTaskId``). A task is located
only by ``localTaskId`` on its device (the hub adds ``deviceId`` at its own edge); its runtime
handle stays opaque outside the agent that made it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from hangar.model import LocalTask, Transcript
from hangar.protocol.codec import MAX_ID_CHARS, Wire

Id = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID_CHARS)]
PageLimit = Annotated[int, msgspec.Meta(ge=1, le=1000)]
SearchLimit = Annotated[int, msgspec.Meta(ge=1, le=100)]
Query = Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
Title = Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
ProjectKey = Annotated[str, msgspec.Meta(min_length=1, max_length=4096)]
Runtime = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Timestamp = Annotated[str, msgspec.Meta(pattern=r"^\d{4}-\d{2}-\d{2}", max_length=40)]
"""An ISO 8601 date or time (compared as text with the tasks' ISO ``updatedAt``)."""
SearchOrder = Literal["date", "relevance"]

DEFAULT_PAGE = 50
DEFAULT_SEARCH_LIMIT = 20
BULK_LIMIT = 50
"""At most this many ids per ``delete_bulk`` call: the UI submits small batches (RW-177)."""
CLEANUP_LIMIT = 500


# -- requests -------------------------------------------------------------------------------
class NoArguments(Wire):
    """A request without fields (``{}``)."""


class ListTasks(Wire):
    runtime: str | None = None
    include_archived: bool = False
    if_revision: int | None = None
    """The list revision the caller holds: while it is still current the answer is
    ``unchanged`` and carries no tasks."""


class TaskRef(Wire):
    local_task_id: Id


class TranscriptRequest(TaskRef):
    limit: PageLimit = DEFAULT_PAGE
    before_cursor: Id | None = None
    refresh: bool = True
    """Check the file's signature and read appended bytes; ``false`` serves the cached parse
    without touching the file."""
    around_client_user_message_id: Id | None = None
    """The page holding the latest user message with this ``clientUserMessageId`` (its index
    returned as ``aroundIndex``), instead of a page by position; not with ``beforeCursor``."""


class GlanceRequest(TaskRef):
    """The first thing to show of a task: its exact first page when the device knows the
    file (read before, or its turn table kept), else a glance at the file's last turns
    (``settled: false``) so a long session never waits for its full parse."""

    limit: PageLimit = DEFAULT_PAGE


class SearchRequest(Wire):
    query: Query
    limit: SearchLimit = DEFAULT_SEARCH_LIMIT
    include_archived: bool = False
    include_tool_output: bool = False
    project_id: ProjectKey | None = None
    order: SearchOrder = "date"
    """``date``: tasks by ``updatedAt``, newest first (RW-054); ``relevance``: best match first."""
    runtime: Runtime | None = None
    """Only tasks of this agent (``claude``, ``codex``, …)."""
    updated_after: Timestamp | None = None
    """Only tasks updated at or after this time."""
    updated_before: Timestamp | None = None
    """Only tasks updated before this time."""


class RenameRequest(TaskRef):
    title: Title


class ArchiveProjectRequest(Wire):
    project_key: ProjectKey


class ArchivedListRequest(Wire):
    project_key: ProjectKey | None = None


class DeleteBulkRequest(Wire):
    local_task_ids: Annotated[list[Id], msgspec.Meta(min_length=1, max_length=BULK_LIMIT)]
    batch_id: Id | None = None


class DeleteProgressRequest(Wire):
    batch_id: Id | None = None


class TaskIdsRequest(Wire):
    local_task_ids: Annotated[list[Id], msgspec.Meta(min_length=1, max_length=CLEANUP_LIMIT)]


# -- responses ------------------------------------------------------------------------------
class TaskList(Wire):
    tasks: list[LocalTask]
    revision: int | None = None
    """Moves with every change to the list (``None`` from an executor that does not count)."""
    unchanged: bool = False
    """``True``: the list is still the one at ``ifRevision`` (``tasks`` is then empty)."""
    projects: list[str] = msgspec.field(default_factory=list)
    """Blank projects registered on the device, listed even before they have a task
    (always sent, also with ``unchanged``)."""


class TranscriptPage(Transcript, kw_only=True):
    """One page of a task's transcript, with the task it belongs to."""

    task: LocalTask


class SearchMatch(Wire, omit_defaults=False):
    """One matching row of a task: a message (or the title, ``messageIndex`` null)."""

    message_index: int | None
    role: str
    snippet: str
    created_at: str | None


class SearchHit(Wire):
    device_id: str
    local_task_id: str
    title: str | None
    snippet: str
    message_index: int | None
    role: str
    """``user``/``assistant``, or ``title`` for a title hit (then ``messageIndex`` is null)."""
    updated_at: str | None
    device_name: str
    workspace_path: str | None
    runtime: str
    runtime_handle: dict[str, str]
    matches: list[SearchMatch] = msgspec.field(default_factory=list)
    """The task's matching rows, best or newest first as ordered (at most a few); the first
    is the one ``snippet``/``messageIndex`` describe."""
    match_count: int = 1
    """How many rows of the task match (``matches`` may hold fewer)."""
    score: float | None = None
    """The best match's relevance (FTS5 bm25: lower is better), for ordering across devices."""


class IndexProgress(Wire, omit_defaults=False):
    tasks_total: int = 0
    tasks_done: int = 0
    total_bytes: int = 0
    done_bytes: int = 0
    errors: int = 0


class SearchResults(Wire):
    results: list[SearchHit]
    indexing: IndexProgress | None = None
    """Present while a first, large build runs in the background (results found so far)."""


class Renamed(Wire):
    local_task_id: str
    title: str
    updated_at: str
    via: str


class ArchiveResult(Wire):
    local_task_id: str
    archived: bool
    via: str | None = None
    cleanup_reason: str | None = None
    """``missing_rollout`` for a stale Codex thread (hidden, never shown as archived)."""
    worktree: dict[str, Any] | None = None
    """Unarchive only: the task's worktree, restored from its snapshot (``docs/worktrees.md``)."""
    worktree_error: dict[str, str] | None = None
    """Unarchive only: why the task's removed worktree could not be restored."""


class ArchivedMany(Wire):
    archived: list[str]
    missing_rollout: list[str]
    count: int


class DeleteAccepted(Wire):
    deleted: bool
    batch_id: str
    cleanup: dict[str, Any]


class DeleteProgress(Wire):
    batch_id: str | None
    total: int
    done: int
    by_state: dict[str, int]


class Restored(Wire):
    restored: bool
    local_task_id: str
    files: list[str]
    trash_id: str | None = None
    """Set when a cleanup entry was restored: the files came back beside ``local_task_id``,
    which itself was never deleted."""


class Purged(Wire):
    purged: bool
    local_task_id: str


class IndexRun(Wire):
    indexed: int
    errors: int
    total_bytes: int
    pending_deletes: int


class IndexStatus(IndexProgress):
    running: bool = False
