"""A turn's file changes as one reviewable, revertible patch (RW-242..247).

The **artifact** of a turn is built from the ``fileChanges`` blocks the agent recorded on that
turn's assistant messages (in order; a patch that failed to apply is left out). Its id is
``turn-file-changes/0/<turnId>`` — ``0`` because a device-local task has no central task
number, and the turn id may itself be purely numeric (RW-244). An id is accepted only when it
matches :data:`ARTIFACT_ID` in full (RW-245); nothing in it is ever used as a path.

Each file becomes one git-style diff section with paths relative to the task's own directory.
A file is not revertible when the agent recorded no diff for it, when its path leaves the
task's directory, or when the path holds characters a patch cannot carry unquoted. The
artifact's **checksum** is ``sha256:`` of the whole patch text; a revert must name the same
checksum and the same workspace the review showed (RW-246), so it reverts exactly what was
reviewed.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from hangar.errors import HangarError
from hangar.model import FileChange, FileChangesBlock, Message

ARTIFACT_ID = re.compile(r"turn-file-changes/0/(?P<turn>[A-Za-z0-9][A-Za-z0-9._:-]{0,127})")
_UNQUOTABLE = re.compile(r'[\x00-\x1f\x7f"\\]')
_HUNK_LINE = re.compile(r"(?:@@ .*|[ +\-].*|\\ .*|)")


@dataclass(eq=False)
class FileChangesError(HangarError):
    """Something about one artifact; ``artifact_id`` names it."""

    artifact_id: str = ""
    code: ClassVar[str] = "file_changes_error"
    http_status: ClassVar[int] = 400

    def details(self) -> dict[str, Any]:
        return {"artifactId": self.artifact_id} if self.artifact_id else {}


@dataclass(eq=False)
class BadArtifactIdError(FileChangesError):
    code: ClassVar[str] = "bad_artifact_id"


@dataclass(eq=False)
class ArtifactMissingError(FileChangesError):
    """The turn is not in the task's transcript, or it recorded no file changes."""

    code: ClassVar[str] = "file_changes_missing"
    http_status: ClassVar[int] = 404


@dataclass(eq=False)
class WorkspaceMismatchError(FileChangesError):
    code: ClassVar[str] = "workspace_mismatch"


@dataclass(eq=False)
class StaleArtifactError(FileChangesError):
    """The checksum named is not the artifact's current one."""

    code: ClassVar[str] = "file_changes_stale"
    http_status: ClassVar[int] = 409


@dataclass(eq=False)
class NotRevertibleError(FileChangesError):
    code: ClassVar[str] = "file_changes_not_revertible"
    http_status: ClassVar[int] = 409


@dataclass(eq=False)
class RevertConflictError(FileChangesError):
    """The files no longer look like the turn left them: nothing was written."""

    path: str = ""
    git_message: str = ""
    code: ClassVar[str] = "file_changes_conflict"
    http_status: ClassVar[int] = 409

    def details(self) -> dict[str, Any]:
        return {**super().details(), "path": self.path, "gitMessage": self.git_message}


@dataclass(eq=False)
class AlreadyRevertedError(FileChangesError):
    """The directory already looks as it did before the turn."""

    code: ClassVar[str] = "file_changes_already_reverted"
    http_status: ClassVar[int] = 409


def artifact_id(turn_id: str) -> str:
    return f"turn-file-changes/0/{turn_id}"


def parse_artifact_id(value: object) -> str:
    """The turn id an artifact id names; :class:`BadArtifactIdError` unless it matches in
    full."""
    text = value if isinstance(value, str) else ""
    match = ARTIFACT_ID.fullmatch(text)
    if match is None or ".." in text:
        raise BadArtifactIdError(
            f"artifactId {text[:200]!r} is not turn-file-changes/0/<turnId>", artifact_id=""
        )
    return match.group("turn")


@dataclass(frozen=True)
class FilePatch:
    path: str
    """Relative to the task's directory: where the file is after the turn."""
    old_path: str | None
    change_type: str
    additions: int
    deletions: int
    section: str | None
    """The git-style diff of this file, ``None`` when it cannot be reverted."""
    reason: str | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "changeType": self.change_type,
            "additions": self.additions,
            "deletions": self.deletions,
            "revertible": self.section is not None,
        }
        if self.old_path is not None:
            out["oldPath"] = self.old_path
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class Artifact:
    artifact_id: str
    turn_id: str
    message_index: int
    workspace_path: str
    files: tuple[FilePatch, ...]

    @property
    def patch(self) -> str:
        return "".join(f.section or "" for f in self.files)

    @property
    def checksum(self) -> str:
        return "sha256:" + hashlib.sha256(self.patch.encode("utf-8", "surrogateescape")).hexdigest()

    @property
    def revertible(self) -> bool:
        return bool(self.files) and all(f.section is not None for f in self.files)

    def paths(self) -> list[str]:
        """Every path the patch touches (before and after), in order, once."""
        seen: dict[str, None] = {}
        for file in self.files:
            for path in (file.old_path, file.path):
                if path is not None:
                    seen.setdefault(path, None)
        return list(seen)


def build_artifact(workspace_path: str, messages: Sequence[Message], turn_id: str) -> Artifact:
    """The artifact of ``turn_id`` in a task that ran in ``workspace_path``."""
    wanted = artifact_id(turn_id)
    replies = [m for m in messages if m.role == "assistant" and m.turn_id == turn_id]
    changes = [
        change
        for message in replies
        for block in message.blocks or []
        if isinstance(block, FileChangesBlock) and block.success is not False
        for change in block.files
    ]
    if not changes:
        raise ArtifactMissingError(
            f"turn {turn_id} has no recorded file changes in this task", artifact_id=wanted
        )
    files = tuple(_file_patch(workspace_path, change) for change in changes)
    return Artifact(wanted, turn_id, replies[0].index, workspace_path, files)


def _relative(workspace: str, value: str | None) -> tuple[str | None, str | None]:
    """``(relative path, None)`` or ``(None, why not)``."""
    if not value:
        return None, "no path recorded"
    if _UNQUOTABLE.search(value) or value != value.strip():
        return None, "the path has characters a patch cannot carry"
    root = workspace.rstrip("/")
    if posixpath.isabs(value):
        normal = posixpath.normpath(value)
        if not normal.startswith(root + "/"):
            return None, "outside the task's directory"
        value = normal[len(root) + 1 :]
    normal = posixpath.normpath(value)
    if normal in (".", "") or normal == ".." or normal.startswith("../"):
        return None, "outside the task's directory"
    if normal.split("/")[0] == ".git" or "/.git/" in f"/{normal}/":
        return None, "inside .git"
    return normal, None


def _hunks(diff: str | None) -> str | None:
    """The hunks of a unified diff (headers dropped), ``None`` when there are none usable."""
    if diff is None:
        return None
    lines = diff.split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith("@@ ")), None)
    if start is None:
        return "" if not diff.strip() else None
    body = lines[start:]
    if body and body[-1] == "":
        body.pop()
    if not all(_HUNK_LINE.fullmatch(line) for line in body):
        return None
    # A blank context line whose leading space a tool trimmed is still a context line.
    return "\n".join(line or " " for line in body) + "\n"


def _file_patch(workspace: str, change: FileChange) -> FilePatch:
    moved = change.change_type == "move" and change.move_path
    old, new = (change.path, change.move_path) if moved else (None, change.path)
    rel, why = _relative(workspace, new)
    old_rel, old_why = _relative(workspace, old) if old is not None else (None, None)
    hunks = _hunks(change.diff)
    reason = why or old_why
    if reason is None and hunks is None:
        reason = "the agent recorded no diff for this file"
    if reason is None and hunks == "" and change.change_type == "update":
        reason = "the agent recorded an empty diff"
    shown = rel or new or ""
    section = None
    if reason is None and rel is not None and hunks is not None:
        section = _section(rel, old_rel, change.change_type, hunks)
    return FilePatch(
        shown, old_rel, change.change_type, change.additions, change.deletions, section, reason
    )


def _section(rel: str, old: str | None, change_type: str, hunks: str) -> str:
    source = old or rel
    head = [f"diff --git a/{source} b/{rel}"]
    if change_type == "add":
        head.append("new file mode 100644")
        names = ["--- /dev/null", f"+++ b/{rel}"]
    elif change_type == "delete":
        head.append("deleted file mode 100644")
        names = [f"--- a/{rel}", "+++ /dev/null"]
    else:
        if old is not None and old != rel:
            head += [f"rename from {old}", f"rename to {rel}"]
        names = [f"--- a/{source}", f"+++ b/{rel}"]
    if hunks:
        head += names
    return "\n".join(head) + "\n" + hunks
