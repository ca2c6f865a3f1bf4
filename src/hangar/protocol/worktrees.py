"""``runtime.worktrees.*``: requests of the device's worktree store (``docs/worktrees.md``).

The executor checks what the types cannot say (a worktree id that is one safe path segment,
a normalized root without symlinks) and answers ``unsafe_path`` with the reason; answers are
JSON objects documented in ``docs/api.md``.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from hangar.protocol.codec import Wire

PathText = Annotated[str, msgspec.Meta(min_length=1, max_length=4096)]
WorktreeId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Branch = Annotated[str, msgspec.Meta(min_length=1, max_length=255)]
KeepCount = Annotated[int, msgspec.Meta(ge=0, le=10_000)]


class WorktreeSettingsUpdate(Wire):
    root: Annotated[str, msgspec.Meta(max_length=4096)] | None = None
    """Empty for the default: ``worktrees`` under the executor's own home."""
    auto_cleanup: bool | None = None
    keep_count: KeepCount | None = None


class PrepareWorktree(Wire):
    source_path: PathText
    worktree_id: WorktreeId
    branch: Branch | None = None
    """Without it, the project's current branch (never git's default, never ``HEAD``)."""
    permanent: bool = False


class WorktreeRef(Wire):
    """One worktree, by id or by its exact path."""

    worktree_id: WorktreeId | None = None
    path: PathText | None = None
