"""Opening the files hangar reads from agent homes: regular files only, never blocking.

An agent home may hold anything under a session-like name: a FIFO called ``x.jsonl`` (whose
``open()`` waits forever for a writer), a socket, a device file, a folder hangar may not read.
Contract:

- :func:`open_regular` ``lstat``\\ s the path first (following one symlink to a regular file
  is allowed) and refuses anything else with :class:`NotARegularFile`; it then opens with
  ``O_NONBLOCK`` and checks the opened descriptor again, so a file swapped for a FIFO between
  the check and the open cannot block either. :class:`NotARegularFile` is an ``OSError``:
  callers that already handle unreadable files handle it too.
- :func:`is_regular` answers the same question from ``lstat``/``stat`` alone, and
  :func:`regular_stat` returns that ``stat`` (one ``lstat`` for a plain file: the index's
  rescan asks it of every session file).
- :func:`warn_once` logs a warning once per key (a path) for the life of the process, so a
  list repeated every few seconds does not log the same unreadable entry every time.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
import threading
from pathlib import Path
from typing import BinaryIO

_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFDIR: "a directory",
}
_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
_WARNED: set[str] = set()
_WARNED_LIMIT = 10_000
_WARNED_LOCK = threading.Lock()


class NotARegularFile(OSError):
    """``path`` exists but is not a regular file (FIFO, socket, device, directory)."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(errno.EINVAL, f"not a regular file ({kind})", str(path))
        self.kind = kind


def _kind(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def _check(path: Path) -> None:
    st = path.lstat()
    if stat.S_ISLNK(st.st_mode):
        st = path.stat()
    if not stat.S_ISREG(st.st_mode):
        raise NotARegularFile(path, _kind(st.st_mode))


def regular_stat(path: str | Path) -> os.stat_result | None:
    """``path``'s ``stat`` when it is a regular file (or a symlink to one); ``None`` when it
    is gone or anything else (FIFO, socket, device, directory)."""
    # os.lstat on the string: a rescan asks this of every session file, and Path's own
    # methods cost more than the system call.
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            st = os.stat(path)  # noqa: PTH116
    except OSError:
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def is_regular(path: Path) -> bool:
    """Whether ``path`` is a regular file (or a symlink to one); ``False`` when it is gone."""
    return regular_stat(path) is not None


def open_regular(path: Path, buffering: int = -1) -> BinaryIO:
    """``path`` opened for binary reading; raises :class:`NotARegularFile` (or another
    ``OSError``) for anything that is not a regular file. Never blocks on a FIFO."""
    _check(path)
    fd = os.open(path, _FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotARegularFile(path, _kind(st.st_mode))
        os.set_blocking(fd, True)  # regular files never block; plain reads from here on
        return os.fdopen(fd, "rb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise


def read_regular_bytes(path: Path) -> bytes:
    """The whole content of a regular file (see :func:`open_regular`)."""
    with open_regular(path) as handle:
        return handle.read()


def warn_once(log: logging.Logger, key: str, message: str, *args: object) -> None:
    """``log.warning(message, *args)`` the first time ``key`` is seen in this process."""
    with _WARNED_LOCK:
        if key in _WARNED:
            return
        if len(_WARNED) >= _WARNED_LIMIT:
            _WARNED.clear()
        _WARNED.add(key)
    log.warning(message, *args)
