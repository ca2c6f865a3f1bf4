"""``$HANGAR_HOME/runtime-work/worktrees.json``: this device's worktree settings and records.

Device-level state (RW-190/191): never in the hub or the browser. One file holds both the
settings and the worktrees hangar manages (with their ``permanent`` flag, RW-207), so one
atomic write changes them together. Read-modify-write goes through :meth:`WorktreeFile.editing`
under an exclusive ``flock`` (threads and processes alike); a reader sees the old file or the
new one. A file that does not parse is reported, never rewritten.

Settings: ``root`` (empty = ``worktrees`` under this executor's own home, RW-192/204),
``autoCleanup`` (on), ``keepCount`` (15, RW-193), ``knownRoots`` (every earlier resolved root,
RW-194/195).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import msgspec

from hangar.atomicfile import write_atomic
from hangar.errors import CorruptFileError
from hangar.paths import HangarPaths

WorktreeState = Literal["active", "snapshot"]
"""``active``: the directory is hangar's worktree; ``snapshot``: it was removed after its
snapshot ref was written and can be restored."""

DEFAULT_KEEP = 15
MAX_KEEP = 10_000


class WorktreeSettings(msgspec.Struct, rename="camel", kw_only=True):
    root: str = ""
    auto_cleanup: bool = True
    keep_count: int = DEFAULT_KEEP
    known_roots: list[str] = msgspec.field(default_factory=list)

    def resolved_root(self, home: Path) -> Path:
        return Path(self.root) if self.root else home / "worktrees"


class Snapshot(msgspec.Struct, rename="camel", kw_only=True):
    ref: str
    commit: str
    head: str
    created_at: str
    files: int = 0
    ignored: list[str] = msgspec.field(default_factory=list)
    """Ignored entries that were in the directory and are not part of the snapshot."""


class WorktreeRecord(msgspec.Struct, rename="camel", kw_only=True):
    worktree_id: str
    path: str
    repository_root: str
    """The repository's main working tree (the Project the worktree belongs to)."""
    common_dir: str
    repository_name: str
    branch: str
    base_commit: str
    created_at: str
    last_used_at: str
    permanent: bool = False
    state: WorktreeState = "active"
    snapshot: Snapshot | None = None


class StoreData(msgspec.Struct, rename="camel", kw_only=True):
    version: int = 1
    settings: WorktreeSettings = msgspec.field(default_factory=WorktreeSettings)
    worktrees: dict[str, WorktreeRecord] = msgspec.field(default_factory=dict)


class WorktreeFile:
    """The settings-and-records file of one executor home."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.path = HangarPaths(home).worktrees_file
        self.folder = self.path.parent
        self._lock_path = self.folder / "worktrees.lock"

    def read(self) -> StoreData:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return StoreData()
        except OSError as exc:
            raise CorruptFileError(path=self.path, problem=f"cannot read: {exc}") from None
        try:
            return msgspec.json.decode(raw, type=StoreData)
        except msgspec.DecodeError as exc:
            raise CorruptFileError(path=self.path, problem=f"not a worktree store: {exc}") from None

    @contextlib.contextmanager
    def editing(self) -> Iterator[StoreData]:
        """The current data, saved when the block ends without an error."""
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            data = self.read()
            before = msgspec.json.encode(data)
            yield data
            after = msgspec.json.encode(data)
            if after != before:
                write_atomic(self.path, msgspec.json.format(after, indent=2) + b"\n", 0o600)
        finally:
            os.close(fd)  # closing releases the lock
