"""``runtime.files.*``: a read-only view of a task's directory with git status (RW-248..252).

The directory is resolved like a terminal's (:mod:`hangar.protocol.terminal`): a LocalTask's
own ``workspacePath``, or a project root this device knows. ``path`` is relative to it, uses
``/``, and may not leave it: no absolute paths, no ``..``, no symlink followed on the way
(``unsafe_path``). Nothing here writes.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from hangar.protocol.codec import Wire
from hangar.protocol.tasks import Id
from hangar.protocol.worktrees import PathText

RelativePath = Annotated[str, msgspec.Meta(max_length=4096)]
MAX_ENTRIES = 2000
"""A listing shows at most this many entries of one directory (``truncated`` says so)."""
MAX_READ_BYTES = 512 * 1024
"""A read returns at most this many bytes of a file (``truncated`` says so)."""
MAX_STATUS_ENTRIES = 1000

EntryKind = Literal["file", "dir", "symlink", "other"]


class WorkspaceRef(Wire):
    workspace_path: PathText
    local_task_id: Id | None = None


class FilesRequest(WorkspaceRef):
    path: RelativePath = ""
    """Relative to the directory; empty for the directory itself."""


class FileEntry(Wire, omit_defaults=False):
    name: str
    kind: EntryKind
    size: int | None
    """Bytes, for regular files."""
    target: str | None = None
    """A symlink's target as written (never followed)."""


class FileListing(Wire, omit_defaults=False):
    workspace_path: str
    path: str
    entries: list[FileEntry]
    truncated: bool


class FileContent(Wire, omit_defaults=False):
    workspace_path: str
    path: str
    size: int
    binary: bool
    """The file holds NUL bytes: no ``text``."""
    text: str | None
    """UTF-8 (undecodable bytes replaced), at most :data:`MAX_READ_BYTES`."""
    truncated: bool


class StatusEntry(Wire, omit_defaults=False):
    path: str
    """Relative to the directory."""
    index: str
    """git's status letter for the index (``.`` unchanged, ``?`` untracked)."""
    worktree: str
    """git's status letter for the working tree."""
    original_path: str | None = None
    """A rename's or copy's source."""


class GitStatus(Wire, omit_defaults=False):
    workspace_path: str
    repository: bool
    """``false``: the directory is not in a git repository (no other field is set)."""
    branch: str | None = None
    """``null`` on a detached HEAD."""
    head: str | None = None
    entries: list[StatusEntry] = msgspec.field(default_factory=list)
    truncated: bool = False
