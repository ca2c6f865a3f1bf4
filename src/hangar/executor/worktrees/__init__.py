"""The executor's worktree store (``runtime.worktrees.*``): see ``docs/worktrees.md``.

:class:`WorktreeService` is the library API; :mod:`.snapshot` writes and restores the hidden
snapshot refs; :mod:`.policy` decides automatic cleanup; :mod:`.lease` is the one-writer lease.
"""

from hangar.executor.worktrees.service import WorktreeService
from hangar.executor.worktrees.snapshot import REF_PREFIX, snapshot_ref

__all__ = ["REF_PREFIX", "WorktreeService", "snapshot_ref"]
