"""``runtime.tasks.turn_file_changes_review|revert``: a turn's file changes (RW-242..247).

``artifact_id`` is ``turn-file-changes/0/<turnId>``; the executor matches it in full and
answers ``bad_artifact_id`` otherwise. ``workspace_path`` must be the task's own directory.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from hangar.protocol.codec import Wire
from hangar.protocol.tasks import Id
from hangar.protocol.worktrees import PathText


class TurnFileChanges(Wire):
    local_task_id: Id
    workspace_path: PathText
    artifact_id: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]


class RevertTurnFileChanges(TurnFileChanges):
    checksum: Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
    """The ``checksum`` the review showed: only what was reviewed is reverted."""
