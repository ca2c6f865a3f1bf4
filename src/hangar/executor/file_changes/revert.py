"""Checking and reverting an artifact in the task's own directory (RW-243).

Nothing is tried on the real files first. The files the patch touches are copied into a
scratch folder and the patch is reversed there, one section at a time from the last, with
``git apply -R`` (outside any repository). Only when every section reverses cleanly are the
results written back, each file atomically, after checking that no file changed in between;
the versions being replaced are copied into hangar's trash first (restorable). A section that
does not reverse is a **conflict** and leaves the directory untouched. When the reverse fails
but the forward patch applies, the files already look as they did before the turn: the state
is **reverted**.

Paths are refused when they, or a folder on the way to them, are symlinks: a revert never
writes outside the task's directory.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import stat
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hangar.atomicfile import write_atomic
from hangar.executor import trash
from hangar.executor.file_changes.artifact import (
    AlreadyRevertedError,
    Artifact,
    NotRevertibleError,
    RevertConflictError,
)
from hangar.executor.worktrees.git import Git, GitFailed

State = Literal["applied", "reverted", "conflict"]


@dataclass(frozen=True)
class Check:
    state: State
    path: str | None = None
    message: str | None = None


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    except FileNotFoundError:
        return None


def _inside(workspace: Path, rel: str, artifact: Artifact) -> Path:
    """``workspace/rel``, refusing symlinks (the file or any folder on the way) and folders."""
    current = workspace
    for part in rel.split("/"):
        current = current / part
        if current.is_symlink():
            raise NotRevertibleError(
                f"{rel}: {current} is a symlink; a revert does not follow it",
                artifact_id=artifact.artifact_id,
            )
    if current.is_dir():
        raise NotRevertibleError(f"{rel} is a folder now", artifact_id=artifact.artifact_id)
    return current


def _copy_in(workspace: Path, scratch: Path, artifact: Artifact) -> dict[str, str | None]:
    digests: dict[str, str | None] = {}
    for rel in artifact.paths():
        source = _inside(workspace, rel, artifact)
        digests[rel] = _digest(source)
        if digests[rel] is not None:
            target = scratch / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            target.chmod(stat.S_IMODE(source.stat().st_mode))
    return digests


def _apply(scratch: Path, sections: Sequence[tuple[str, str]], reverse: bool) -> Check | None:
    """Apply each ``(path, section)`` in turn; the first failure, or ``None``."""
    git = Git(scratch, {"GIT_CEILING_DIRECTORIES": str(scratch.parent)}, timeout=60)
    args = ["apply", "--whitespace=nowarn", *(["-R"] if reverse else []), "-"]
    for path, section in sections:
        try:
            git.run(*args, input=section.encode("utf-8", "surrogateescape"))
        except GitFailed as exc:
            return Check("conflict", path, exc.stderr.strip() or str(exc))
    return None


def _sections(artifact: Artifact) -> list[tuple[str, str]]:
    return [(f.path, f.section) for f in artifact.files if f.section is not None]


def check(workspace: Path, artifact: Artifact) -> Check:
    """Where the directory stands: ``applied`` (the turn's changes are there and can be
    reverted), ``reverted`` (the files look as before the turn) or ``conflict``."""
    sections = _sections(artifact)
    with tempfile.TemporaryDirectory(prefix="hangar-revert-") as tmp:
        scratch = Path(tmp) / "files"
        scratch.mkdir()
        _copy_in(workspace, scratch, artifact)
        failed = _apply(scratch, list(reversed(sections)), reverse=True)
        if failed is None:
            return Check("applied")
    with tempfile.TemporaryDirectory(prefix="hangar-revert-") as tmp:
        scratch = Path(tmp) / "files"
        scratch.mkdir()
        _copy_in(workspace, scratch, artifact)
        if _apply(scratch, sections, reverse=False) is None:
            return Check("reverted")
    return failed


def revert(
    workspace: Path, artifact: Artifact, trash_root: Path, task: dict[str, str]
) -> dict[str, object]:
    """Reverse the artifact in ``workspace``; :class:`RevertConflictError` (nothing written)
    when it does not reverse cleanly."""
    if not artifact.revertible:
        raise NotRevertibleError(
            "some files of this turn cannot be reverted", artifact_id=artifact.artifact_id
        )
    with tempfile.TemporaryDirectory(prefix="hangar-revert-") as tmp:
        scratch = Path(tmp) / "files"
        scratch.mkdir()
        digests = _copy_in(workspace, scratch, artifact)
        failed = _apply(scratch, list(reversed(_sections(artifact))), reverse=True)
        if failed is not None:
            if check(workspace, artifact).state == "reverted":
                raise AlreadyRevertedError(
                    "the files already look as they did before this turn",
                    artifact_id=artifact.artifact_id,
                )
            raise RevertConflictError(
                f"{failed.path} no longer matches what the turn wrote; nothing was reverted",
                artifact_id=artifact.artifact_id,
                path=failed.path or "",
                git_message=failed.message or "",
            )
        for rel, digest in digests.items():
            if _digest(_inside(workspace, rel, artifact)) != digest:
                raise RevertConflictError(
                    f"{rel} changed while reverting; nothing was reverted",
                    artifact_id=artifact.artifact_id,
                    path=rel,
                )
        backup = _backup(workspace, digests, trash_root, artifact, task)
        written: list[dict[str, object]] = []
        for rel in digests:
            result, target = scratch / rel, workspace / rel
            if result.is_file():
                mode = stat.S_IMODE(result.stat().st_mode)
                write_atomic(target, result.read_bytes(), mode)
                written.append({"path": rel, "action": "written"})
            elif target.exists():
                target.unlink()
                _prune_empty(target.parent, workspace)
                written.append({"path": rel, "action": "removed"})
    return {"files": written, "backupTrashId": backup}


def _backup(
    workspace: Path,
    digests: dict[str, str | None],
    trash_root: Path,
    artifact: Artifact,
    task: dict[str, str],
) -> str | None:
    present = [workspace / rel for rel, digest in digests.items() if digest is not None]
    if not present:
        return None
    trash_id = f"revert-{task.get('localTaskId', 'task')}-{uuid.uuid4().hex[:8]}"
    meta = {**task, "artifactId": artifact.artifact_id, "checksum": artifact.checksum}
    trash.move_to_trash(trash_root, trash_id, present, meta, keep_original=True)
    return trash_id


def _prune_empty(folder: Path, workspace: Path) -> None:
    """Remove folders the removed file leaves empty, up to (never including) the task's."""
    while folder != workspace and workspace in folder.parents:
        with contextlib.suppress(OSError):
            folder.rmdir()
        if folder.exists():
            return
        folder = folder.parent
