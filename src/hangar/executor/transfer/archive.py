"""The archive package of a copy whose project is not a git workspace (RW-314).

Unlike a git fork's package it carries the project's files, so it is written to a file and
read back in chunks, never held in memory: :func:`write_archive` streams a gzipped tar of the
manifest, the agent's session files (``session/…``) and every regular file of the project
(``project/…``; symlinks and special files are left out, never followed) while hashing what it
writes; :func:`read_archive` checks the SHA-256 of the file first, then extracts members one
by one into a new directory, refusing unsafe names, as :mod:`~hangar.executor.transfer.package`
does for a git package.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
from pathlib import Path
from typing import IO, Any

from hangar.executor.transfer.package import FORMAT, MANIFEST, BadPackage, safe_name

CHUNK = 1024 * 1024
PROJECT = "project"
SESSION = "session"


class _Hashing(io.RawIOBase):
    """A write-only file that hashes and counts what passes through it."""

    def __init__(self, target: IO[bytes]) -> None:
        self.target = target
        self.digest = hashlib.sha256()
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        self.digest.update(chunk)
        self.size += len(chunk)
        self.target.write(chunk)
        return len(chunk)


def _regular_files(root: Path) -> list[Path]:
    found: list[Path] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not (Path(folder) / d).is_symlink())
        for name in sorted(files):
            path = Path(folder) / name
            if not path.is_symlink() and path.is_file():
                found.append(path)
    return found


def write_archive(
    out: Path, manifest: dict[str, Any], sessions: dict[str, Path], project: Path
) -> tuple[str, int]:
    """Write the archive to ``out``; returns its ``(sha256, size)``."""
    with out.open("wb") as raw:
        hashing = _Hashing(raw)
        with tarfile.open(fileobj=hashing, mode="w|gz") as tar:
            body = json.dumps({"format": FORMAT, **manifest}, sort_keys=True).encode()
            info = tarfile.TarInfo(MANIFEST)
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
            members = [(f"{SESSION}/{n}", p) for n, p in sorted(sessions.items())]
            members += [(f"{PROJECT}/{p.relative_to(project)}", p) for p in _regular_files(project)]
            for name, path in members:
                with path.open("rb") as handle:
                    info = tarfile.TarInfo(safe_name(name))
                    info.size = os.fstat(handle.fileno()).st_size
                    info.mode = 0o644
                    tar.addfile(info, handle)
    return hashing.digest.hexdigest(), hashing.size


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def read_archive(
    path: Path, expected_sha256: str, project_into: Path
) -> tuple[dict[str, Any], dict[str, bytes]]:
    """Check the archive at ``path``, write its project files under ``project_into`` (a new
    directory) and return ``(manifest, session files)``."""
    if file_sha256(path) != expected_sha256:
        raise BadPackage("the archive does not match its SHA-256: refused, nothing applied")
    manifest: dict[str, Any] | None = None
    sessions: dict[str, bytes] = {}
    project_into.mkdir(parents=True)
    root = project_into.resolve()
    try:
        with tarfile.open(path, mode="r|gz") as tar:
            for info in tar:
                if not info.isreg():
                    raise BadPackage(f"archive member {info.name!r} is not a regular file")
                name = safe_name(info.name)
                handle = tar.extractfile(info)
                assert handle is not None
                if name == MANIFEST:
                    manifest = json.loads(handle.read())
                elif name.startswith(SESSION + "/"):
                    sessions[name[len(SESSION) + 1 :]] = handle.read()
                elif name.startswith(PROJECT + "/"):
                    target = root / name[len(PROJECT) + 1 :]
                    target.parent.mkdir(parents=True, exist_ok=True)
                    if not target.parent.resolve().is_relative_to(root):
                        raise BadPackage(f"archive member {name!r} would leave the project")
                    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                    with os.fdopen(os.open(target, flags, 0o644), "wb") as out:
                        while chunk := handle.read(CHUNK):
                            out.write(chunk)
                else:
                    raise BadPackage(f"archive member {name!r} is not part of a package")
    except (tarfile.TarError, EOFError, ValueError) as exc:
        raise BadPackage(f"the archive is not readable: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BadPackage("the archive has no readable manifest of this format")
    return manifest, sessions
