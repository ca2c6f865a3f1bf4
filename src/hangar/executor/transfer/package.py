"""The transfer package: one tar file, checksummed, with a manifest.

Members: ``manifest.json`` (the task context and what else is inside), ``git/commits.bundle``
(local commits, when there are any), ``git/tracked.diff`` (uncommitted tracked changes,
binary), ``untracked/<path>`` (non-ignored untracked files), ``session/<path>`` (the agent's
session files, verbatim). The SHA-256 of the whole package travels beside it and is checked
before anything is read (:func:`open_package`); member names are checked too (no absolute
path, no ``..``, regular files only), so a tampered or hostile package is refused whole.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, ClassVar

from hangar.errors import HangarError
from hangar.protocol.transfer import MAX_PACKAGE_BYTES

MANIFEST = "manifest.json"
FORMAT = 1


@dataclass(eq=False)
class BadPackage(HangarError):
    """A package that fails its checksum or holds what a package never holds (HTTP 422)."""

    code: ClassVar[str] = "bad_package"
    http_status: ClassVar[int] = 422


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def safe_name(name: str) -> str:
    """``name`` when it is a relative path without ``..`` (else :class:`BadPackage`)."""
    path = PurePosixPath(name)
    if not name or path.is_absolute() or ".." in path.parts or "\\" in name or "\0" in name:
        raise BadPackage(f"package member {name!r} is not a safe relative path")
    return str(path)


def build_package(manifest: dict[str, Any], files: dict[str, bytes]) -> bytes:
    """The tar of ``manifest`` and ``files`` (name → content), in name order."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        entries = {MANIFEST: json.dumps({"format": FORMAT, **manifest}, sort_keys=True).encode()}
        entries.update({safe_name(k): v for k, v in files.items()})
        for name in sorted(entries):
            info = tarfile.TarInfo(name)
            info.size = len(entries[name])
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(entries[name]))
    data = buffer.getvalue()
    if len(data) > MAX_PACKAGE_BYTES:
        raise BadPackage(f"the package is {len(data)} bytes, over {MAX_PACKAGE_BYTES}")
    return data


@dataclass(frozen=True)
class OpenedPackage:
    manifest: dict[str, Any]
    files: dict[str, bytes]

    def under(self, prefix: str) -> dict[str, bytes]:
        """Members below ``prefix/``, by their name relative to it."""
        start = prefix.rstrip("/") + "/"
        return {k[len(start) :]: v for k, v in self.files.items() if k.startswith(start)}


def open_package(data: bytes, expected_sha256: str) -> OpenedPackage:
    """The package's members, after its checksum and every member name passed."""
    if sha256(data) != expected_sha256:
        raise BadPackage("the package does not match its SHA-256: refused, nothing applied")
    files: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for info in tar:
                if not info.isreg():
                    raise BadPackage(f"package member {info.name!r} is not a regular file")
                handle = tar.extractfile(info)
                assert handle is not None
                files[safe_name(info.name)] = handle.read()
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise BadPackage(f"the package is not a readable archive: {exc}") from None
    raw = files.pop(MANIFEST, None)
    try:
        manifest = json.loads(raw) if raw is not None else None
    except ValueError:
        manifest = None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BadPackage("the package has no readable manifest of this format")
    return OpenedPackage(manifest, files)
