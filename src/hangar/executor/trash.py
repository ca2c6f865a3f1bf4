"""``$HANGAR_HOME/trash/<trashId>/``: deleted session files, restorable until purged.

Layout of one entry::

    trash/<trashId>/manifest.json   {"trashId", "localTaskId", "runtime", "deletedAt",
                                     "state": "moving"|"complete", "task": {...},
                                     "files": [{"original", "stored", "size", "sha256"}]}
    trash/<trashId>/files/NNNN-<name> the session files, byte for byte

Contract:

* :func:`move_to_trash` writes the manifest (state ``moving``, every file's size and sha256)
  *before* touching any file, then moves the files one by one and marks it ``complete``. A
  crash at any point leaves each file either at its original path or in the trash, never
  lost and never half-copied; calling it again with the same ``trash_id`` finishes the job.
* Files are moved with ``rename`` on the same file system; across file systems they are
  copied, fsynced, hash-checked and only then unlinked. ``keep_original=True`` copies only
  (for agents that delete their own file through their own interface afterwards).
* :func:`restore` puts every file back at its original path after checking its hash; it
  refuses (and changes nothing) when an original path is occupied by different content.
* :func:`purge` removes an entry for good. Only regular files are ever trashed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hangar.atomicfile import write_atomic
from hangar.errors import CorruptFileError, HangarError, NotFoundError
from hangar.private_files import make_private_dir


@dataclass(eq=False)
class TrashConflictError(HangarError):
    code = "conflict"
    http_status = 409


def sha256_file(path: Path) -> tuple[int, str]:
    """Size and sha256 of a regular file (read in 1 MiB chunks)."""
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _manifest_path(entry: Path) -> Path:
    return entry / "manifest.json"


def read_manifest(entry: Path) -> dict[str, Any]:
    path = _manifest_path(entry)
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        raise NotFoundError(kind="trash entry", key=entry.name) from None
    except ValueError as exc:
        raise CorruptFileError(path=path, problem=f"invalid JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("files"), list):
        raise CorruptFileError(path=path, problem="not a trash manifest")
    return data


def _write_manifest(entry: Path, manifest: dict[str, Any]) -> None:
    data = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    write_atomic(_manifest_path(entry), data.encode(), mode=0o600)


def _move_file(source: Path, target: Path, sha256: str, keep_original: bool) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if not keep_original:
        try:
            source.rename(target)
            return
        except OSError as exc:
            if exc.errno != 18:  # EXDEV: another file system, copy instead
                raise
    partial = target.with_name(target.name + ".part")
    shutil.copyfile(source, partial)
    with partial.open("rb") as handle:
        os.fsync(handle.fileno())
    if sha256_file(partial)[1] != sha256:
        partial.unlink()
        raise CorruptFileError(path=source, problem="changed while being moved to the trash")
    partial.rename(target)
    if not keep_original:
        source.unlink()


def move_to_trash(
    trash_root: Path,
    trash_id: str,
    files: list[Path],
    task: dict[str, Any],
    *,
    keep_original: bool = False,
) -> dict[str, Any]:
    """Move ``files`` into ``trash_root/trash_id`` (resumable; see the module contract)."""
    entry = trash_root / trash_id
    if _manifest_path(entry).exists():
        manifest = read_manifest(entry)
    else:
        listed = []
        for number, path in enumerate(files):
            if path.is_symlink() or not path.is_file():
                continue
            size, digest = sha256_file(path)
            stored = f"files/{number:04d}-{path.name}"
            listed.append({"original": str(path), "stored": stored, "size": size, "sha256": digest})
        manifest = {
            "trashId": trash_id,
            "localTaskId": task.get("localTaskId"),
            "runtime": task.get("runtime"),
            "deletedAt": now_iso(),
            "keepOriginal": keep_original,
            "state": "moving",
            "task": task,
            "files": listed,
        }
        make_private_dir(trash_root)
        make_private_dir(entry)
        _write_manifest(entry, manifest)
    for item in manifest["files"]:
        original, stored = Path(item["original"]), entry / item["stored"]
        if stored.exists():
            if not manifest.get("keepOriginal") and original.exists():
                _drop_duplicate(original, stored, item["sha256"])
            continue
        _move_file(original, stored, item["sha256"], bool(manifest.get("keepOriginal")))
    manifest["state"] = "complete"
    _write_manifest(entry, manifest)
    return manifest


def convert_to_move(trash_root: Path, trash_id: str) -> None:
    """Turn a copy-only entry into a move: the next :func:`move_to_trash` then drops each
    original that is still in place, after checking that its copy has the same sha256."""
    entry = trash_root / trash_id
    manifest = read_manifest(entry)
    manifest["keepOriginal"] = False
    manifest["state"] = "moving"
    _write_manifest(entry, manifest)


def _drop_duplicate(original: Path, stored: Path, sha256: str) -> None:
    """A crash after a cross-device copy but before the unlink: keep one verified copy."""
    if sha256_file(stored)[1] == sha256 and sha256_file(original)[1] == sha256:
        original.unlink()


def restore(trash_root: Path, trash_id: str) -> dict[str, Any]:
    """Put every file of an entry back where it was; the entry is removed afterwards."""
    entry = trash_root / trash_id
    manifest = read_manifest(entry)
    plan: list[tuple[Path, Path]] = []
    for item in manifest["files"]:
        original, stored = Path(item["original"]), entry / item["stored"]
        if not stored.exists():
            if original.exists() and sha256_file(original)[1] == item["sha256"]:
                continue  # never moved (crash before the move) or already restored
            raise CorruptFileError(path=stored, problem="missing from the trash")
        if sha256_file(stored)[1] != item["sha256"]:
            raise CorruptFileError(path=stored, problem="sha256 differs from the manifest")
        if original.exists() and sha256_file(original)[1] != item["sha256"]:
            raise TrashConflictError(f"{original} exists with other content; nothing restored")
        plan.append((stored, original))
    for stored, original in plan:
        original.parent.mkdir(parents=True, exist_ok=True)
        if original.exists():
            stored.unlink()
        else:
            _move_back(stored, original)
    shutil.rmtree(entry)
    return manifest


def _move_back(stored: Path, original: Path) -> None:
    try:
        stored.rename(original)
    except OSError as exc:
        if exc.errno != 18:
            raise
        shutil.copyfile(stored, original)
        with original.open("rb") as handle:
            os.fsync(handle.fileno())
        stored.unlink()


def purge(trash_root: Path, trash_id: str) -> dict[str, Any]:
    """Remove an entry for good; returns its manifest."""
    entry = trash_root / trash_id
    manifest = read_manifest(entry)
    shutil.rmtree(entry)
    return manifest


def list_entries(trash_root: Path) -> list[dict[str, Any]]:
    """Every readable manifest in the trash (corrupt ones are reported with an ``error``)."""
    out: list[dict[str, Any]] = []
    if not trash_root.is_dir():
        return out
    for entry in sorted(trash_root.iterdir()):
        if not entry.is_dir():
            continue
        try:
            out.append(read_manifest(entry))
        except HangarError as exc:
            out.append({"trashId": entry.name, "error": str(exc)})
    return out


def purge_expired(trash_root: Path, retention_days: int, now: datetime | None = None) -> list[str]:
    """Purge complete entries deleted more than ``retention_days`` ago; returns their ids."""
    moment = now or datetime.now(UTC)
    limit = moment - timedelta(days=retention_days)
    purged: list[str] = []
    for manifest in list_entries(trash_root):
        if manifest.get("state") != "complete":
            continue
        with contextlib.suppress(ValueError, TypeError):
            deleted = datetime.fromisoformat(str(manifest["deletedAt"]).replace("Z", "+00:00"))
            if deleted <= limit:
                purge(trash_root, str(manifest["trashId"]))
                purged.append(str(manifest["trashId"]))
    return purged
