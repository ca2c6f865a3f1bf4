"""Copying a task to another device (RW-306..313, RW-318): the executor side of a git fork.

The hub drives a cross-device copy in four calls, each on one device:

1. ``runtime.transfer.source {localTaskId}`` (source) → the task's git facts: its remote, its
   ``HEAD`` and the base its local commits start from (``base == head`` without any).
2. ``runtime.transfer.check {workspacePath, remoteUrl, commits}`` (target) → whether the target
   project is a git workspace with the same remote and which of the commits it has.
3. ``runtime.transfer.export {localTaskId, lastTurnId, transferId, base}`` (source) → the
   package: task context, the agent's session files, and a light patch from ``base`` (the
   local commits as a git bundle, uncommitted tracked changes as a binary diff, non-ignored
   untracked files) — never the repository; with its SHA-256.
4. ``runtime.transfer.import {transferId, workspacePath, newLocalTaskId, package, sha256}``
   (target) → the copy: a detached worktree ``<worktrees root>/<transferId>/<projectDir>`` at
   the source's ``HEAD`` with the patch applied, the session forked there through the turn.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from hangar.protocol.codec import Wire
from hangar.protocol.create import LocalTaskId
from hangar.protocol.tasks import Id
from hangar.protocol.worktrees import PathText

Commit = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{40}([0-9a-f]{24})?$")]
TransferId = Annotated[str, msgspec.Meta(pattern="^[A-Za-z0-9][A-Za-z0-9_-]{7,63}$")]
Sha256 = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]
RemoteUrl = Annotated[str, msgspec.Meta(min_length=1, max_length=4096)]
MAX_PACKAGE_BYTES = 256 * 1024 * 1024
"""A git fork's package is light; one larger than this is refused on both ends."""


class SourceRequest(Wire):
    local_task_id: Id


class SourceInfo(Wire, omit_defaults=False):
    local_task_id: str
    runtime: str
    workspace_path: str
    project_dir: str
    """The name of the repository's directory (the worktree's last path segment)."""
    git: bool
    remote_url: str | None
    head: str | None
    base: str | None
    """Where the local commits (not on any remote-tracking ref) start; ``head`` without any."""
    local_commits: int


class CheckTarget(Wire):
    workspace_path: PathText
    remote_url: RemoteUrl
    commits: list[Commit]


class TargetCheck(Wire, omit_defaults=False):
    workspace_path: str
    git: bool
    same_remote: bool
    remote_url: str | None
    reachable: list[str]
    """The asked commits the target repository has."""


class ExportRequest(Wire):
    local_task_id: Id
    last_turn_id: Id
    transfer_id: TransferId
    base: Commit


class Package(Wire, omit_defaults=False):
    transfer_id: str
    data: bytes
    sha256: str
    members: list[str]
    """The package's file names (for the record: never a ``.git`` directory)."""


class ImportRequest(Wire):
    transfer_id: TransferId
    workspace_path: PathText
    """The target project (a directory the target device reports)."""
    new_local_task_id: LocalTaskId
    data: bytes
    sha256: Sha256


Token = Annotated[str, msgspec.Meta(min_length=32, max_length=128)]
Host = Annotated[str, msgspec.Meta(min_length=1, max_length=255)]
Url = Annotated[str, msgspec.Meta(min_length=1, max_length=8192)]


class OfferRequest(Wire):
    """Source: write the archive of a non-git task and serve it to the holder of ``token``."""

    local_task_id: Id
    last_turn_id: Id
    transfer_id: TransferId
    token: Token


class ArchiveOffer(Wire, omit_defaults=False):
    transfer_id: str
    port: int
    sha256: str
    size: int


class UploadRequest(Wire):
    """Source: ``PUT`` the offered archive to ``url`` (presigned object storage)."""

    transfer_id: TransferId
    url: Url


class Uploaded(Wire, omit_defaults=False):
    transfer_id: str
    size: int


class FetchRequest(Wire):
    """Target: fetch the archive — directly from the first of ``hosts`` that passes the
    token-bearing probe, else from ``objectUrl`` when given — check it and import the copy."""

    transfer_id: TransferId
    workspace_path: PathText
    new_local_task_id: LocalTaskId
    sha256: Sha256
    size: Annotated[int, msgspec.Meta(ge=0)]
    hosts: list[Host] = msgspec.field(default_factory=list)
    port: Annotated[int, msgspec.Meta(ge=0, le=65535)] = 0
    token: Token | None = None
    object_url: Url | None = None


class ArchiveCopied(Wire, omit_defaults=False):
    local_task_id: str
    source_local_task_id: str
    runtime: str
    workspace_path: str
    last_turn_id: str
    via: str
    """``direct`` (with ``host``, the address that passed the probe) or ``object_storage``."""
    host: str | None = None


class WithdrawRequest(Wire):
    """Source: stop offering the transfer and remove its archive (the hub gave up on it)."""

    transfer_id: TransferId


class Withdrawn(Wire, omit_defaults=False):
    transfer_id: str
