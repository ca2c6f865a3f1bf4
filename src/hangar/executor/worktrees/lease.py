"""The execution lease: at most one writer per worktree at a time.

A lease is an exclusive, non-blocking ``flock`` on ``runtime-work/leases/<worktreeId>.lock``.
``flock`` belongs to the open file, so two threads of one process exclude each other as two
processes do, and a holder that dies releases it with its last file descriptor: there is no
stale lease to clean after a crash. The file names the holder (pid and purpose) so the error a
second writer gets says who is in the way. Prepare, delete, restore and prune take it; an agent
run in a worktree takes it for the run (``WorktreeService.lease``).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator
from pathlib import Path

from hangar.executor.trash import now_iso
from hangar.executor.worktrees.errors import WorktreeBusyError


@contextlib.contextmanager
def hold_lease(folder: Path, worktree_id: str, purpose: str) -> Iterator[None]:
    """Hold ``worktree_id``'s lease for the block; :class:`WorktreeBusyError` at once if
    another writer has it (never waits)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{worktree_id}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise WorktreeBusyError(worktree_id=worktree_id, holder=_holder(fd)) from None
        note = {"pid": os.getpid(), "purpose": purpose, "since": now_iso()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(note).encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)


def _holder(fd: int) -> str:
    try:
        note = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        return ""
    if not isinstance(note, dict) or "pid" not in note:
        return ""
    return f"pid {note.get('pid')}, {note.get('purpose', '?')} since {note.get('since', '?')}"
