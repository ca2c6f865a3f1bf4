"""Crash-safe file writes: a reader sees the old file or the new one, never half of one."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def _write_temp(directory: Path, data: bytes, mode: int) -> Path:
    import tempfile  # with shutil, a few ms: loaded only by a command that writes

    fd, name = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".part")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            Path(name).unlink()
        raise
    return Path(name)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Replace ``path`` with ``data`` atomically (temp file, fsync, rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = _write_temp(path.parent, data, mode)
    try:
        temp.replace(path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise
    _fsync_dir(path.parent)


def create_exclusive(path: Path, data: bytes, mode: int = 0o644) -> bool:
    """Create ``path`` with ``data`` only if it does not exist yet.

    Returns ``True`` when this call created it. The file appears complete or not at all
    (hard link of a finished temp file), so concurrent creators agree on one winner.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = _write_temp(path.parent, data, mode)
    try:
        os.link(temp, path)
    except FileExistsError:
        return False
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
    _fsync_dir(path.parent)
    return True
