"""A read-only view of one directory: list, read, git status (``runtime.files.*``).

Every path is relative to the directory and is opened one component at a time from the
directory's own descriptor with ``O_NOFOLLOW``: a ``..``, an absolute path or a symlink
anywhere on the way is refused (``unsafe_path``), so nothing outside the directory can be
reached, even through a link that points back inside. Only regular files are read, at most
:data:`~hangar.protocol.files.MAX_READ_BYTES` of them; a listing shows at most
:data:`~hangar.protocol.files.MAX_ENTRIES` entries. git's own directory is not shown. git runs
with the worktree store's safe settings (no hooks, no fsmonitor, a clean environment, a
timeout).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, NoReturn

from hangar.errors import HangarError, NotFoundError
from hangar.executor.worktrees.git import Git, GitFailed
from hangar.protocol import files as fl

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
HIDDEN = frozenset({".git"})
GIT_TIMEOUT = 15.0
BINARY_PROBE = 8192


@dataclass(eq=False)
class UnsafeFilePathError(HangarError):
    """A path that is not plainly inside the directory (traversal, absolute, a symlink)."""

    path: str = ""
    code: ClassVar[str] = "unsafe_path"
    http_status: ClassVar[int] = 400

    def details(self) -> dict[str, str]:
        return {"path": self.path}


@dataclass(eq=False)
class NotAFileError(HangarError):
    """Not something the view can show: not a directory where one is listed, not a
    regular file where one is read, or not readable."""

    path: str = ""
    code: ClassVar[str] = "not_a_file"
    http_status: ClassVar[int] = 400


def relative_parts(path: str) -> list[str]:
    """The components of a relative path; refuses anything that could lead elsewhere."""
    if path == "":
        return []
    if _CONTROL.search(path):
        raise UnsafeFilePathError("the path holds control characters", path=path)
    if path.startswith("/"):
        raise UnsafeFilePathError("the path must be relative to the directory", path=path)
    parts = path.split("/")
    for part in parts:
        if part in ("", ".", ".."):
            raise UnsafeFilePathError(
                f"{path!r} is not a plain relative path (no '.', '..' or '//')", path=path
            )
        if part in HIDDEN:
            raise UnsafeFilePathError("git's own directory is not shown", path=path)
    return parts


@contextlib.contextmanager
def _opened(root: Path, path: str, *, directory: bool) -> Iterator[int]:
    """A descriptor of ``path`` under ``root``, walked without following any symlink."""
    parts = relative_parts(path)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for number, part in enumerate(parts):
            last = number == len(parts) - 1
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
            if not last or directory:
                flags |= os.O_DIRECTORY
            try:
                child = os.open(part, flags, dir_fd=fd)
            except OSError as exc:
                _refuse(exc, path, "/".join(parts[: number + 1]), fd, part)
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def _refuse(exc: OSError, path: str, prefix: str, parent: int, name: str) -> NoReturn:
    try:
        mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
    except OSError:
        raise NotFoundError(kind="file", key=path) from None
    if stat.S_ISLNK(mode):
        raise UnsafeFilePathError(
            f"{prefix} is a symlink: the file view does not follow symlinks", path=path
        ) from None
    if exc.errno == errno.ENOTDIR:
        raise NotAFileError(f"{prefix} is not a directory", path=path) from None
    raise NotAFileError(f"{prefix}: {exc.strerror}", path=path) from None


def _display(name: str) -> str:
    """A name as JSON can carry it (bytes that are not UTF-8 shown replaced)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def list_directory(root: Path, path: str) -> fl.FileListing:
    entries: list[fl.FileEntry] = []
    truncated = False
    with _opened(root, path, directory=True) as fd, os.scandir(fd) as scan:
        for entry in scan:
            if entry.name in HIDDEN:
                continue
            if len(entries) >= fl.MAX_ENTRIES:
                truncated = True
                break
            entries.append(_entry(fd, entry))
    entries.sort(key=lambda e: (e.kind != "dir", e.name.lower(), e.name))
    return fl.FileListing(workspace_path=str(root), path=path, entries=entries, truncated=truncated)


def _entry(parent: int, entry: os.DirEntry[str]) -> fl.FileEntry:
    name = _display(entry.name)
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return fl.FileEntry(name=name, kind="other", size=None)
    if stat.S_ISLNK(info.st_mode):
        with contextlib.suppress(OSError):
            target = _display(os.readlink(entry.name, dir_fd=parent))
            return fl.FileEntry(name=name, kind="symlink", size=None, target=target)
        return fl.FileEntry(name=name, kind="symlink", size=None)
    if stat.S_ISDIR(info.st_mode):
        return fl.FileEntry(name=name, kind="dir", size=None)
    if stat.S_ISREG(info.st_mode):
        return fl.FileEntry(name=name, kind="file", size=info.st_size)
    return fl.FileEntry(name=name, kind="other", size=None)


def read_file(root: Path, path: str) -> fl.FileContent:
    if not path:
        raise NotAFileError("name a file to read", path=path)
    with _opened(root, path, directory=False) as fd:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotAFileError(f"{path} is not a regular file", path=path)
        os.set_blocking(fd, True)
        data = _read_at_most(fd, fl.MAX_READ_BYTES)
    binary = b"\0" in data[:BINARY_PROBE]
    return fl.FileContent(
        workspace_path=str(root),
        path=path,
        size=info.st_size,
        binary=binary,
        text=None if binary else data.decode("utf-8", "replace"),
        truncated=info.st_size > len(data),
    )


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(fd, min(left, 65536))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def git_status(root: Path) -> fl.GitStatus:
    """git's view of the directory: branch, head, and what changed below it."""
    git = Git(root, timeout=GIT_TIMEOUT)
    prefix = git.maybe("rev-parse", "--show-prefix")
    if prefix is None:
        return fl.GitStatus(workspace_path=str(root), repository=False)
    try:
        raw = git.run(
            "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=normal", "--", "."
        ).stdout
    except GitFailed as exc:
        raise HangarError(f"git status failed in {root}: {exc}") from None
    return _parse_status(root, prefix, raw)


def _parse_status(root: Path, prefix: str, raw: bytes) -> fl.GitStatus:
    status = fl.GitStatus(workspace_path=str(root), repository=True)
    fields = [os.fsdecode(part) for part in raw.split(b"\0")]
    position = 0
    while position < len(fields):
        line = fields[position]
        position += 1
        if line.startswith("# branch.head "):
            head = line.removeprefix("# branch.head ")
            status.branch = None if head == "(detached)" else head
        elif line.startswith("# branch.oid "):
            oid = line.removeprefix("# branch.oid ")
            status.head = None if oid == "(initial)" else oid
        elif line[:2] in ("1 ", "2 ", "u ", "? "):
            kind = line[0]
            original = None
            if kind == "2":  # a rename or copy: its source is the next field
                original = fields[position] if position < len(fields) else None
                position += 1
            entry = _status_entry(kind, line, prefix, original)
            if entry is None:
                continue
            if len(status.entries) >= fl.MAX_STATUS_ENTRIES:
                status.truncated = True
                break
            status.entries.append(entry)
    return status


def _status_entry(kind: str, line: str, prefix: str, original: str | None) -> fl.StatusEntry | None:
    if kind == "?":
        index, worktree, path = "?", "?", line[2:]
    else:
        fields = line.split(" ", {"1": 8, "2": 9, "u": 10}[kind])
        index, worktree, path = fields[1][0], fields[1][1], fields[-1]
    if not path.startswith(prefix):
        return None

    def relative(value: str) -> str:
        return _display(value.removeprefix(prefix))

    return fl.StatusEntry(
        path=relative(path),
        index=index,
        worktree=worktree,
        original_path=relative(original) if original is not None else None,
    )
