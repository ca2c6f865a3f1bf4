"""What the worktree store accepts as ids, roots and paths.

Every id, root and path that reaches git or the filesystem passes one of these checks first:

* a **worktree id** is one path segment and one git ref component: ``[A-Za-z0-9]`` then up to
  63 of ``[A-Za-z0-9._-]``, no ``..``, not ending in ``.`` or ``.lock``;
* a **root** is absolute, normalized (no ``.``/``..`` segments, no doubled slashes), free of
  control characters, not ``/``, and no existing part of it is a symlink (so a root cannot
  be redirected after it was chosen);
* a **managed path** is exactly ``<root>/<worktreeId>/<repositoryName>`` under the current
  root or a known one, with no symlink on the way.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from hangar.executor.worktrees.errors import UnsafePathError

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def check_worktree_id(value: object) -> str:
    if not isinstance(value, str) or not value:
        raise UnsafePathError("worktreeId must be a non-empty string", value=repr(value))
    if not _ID.fullmatch(value) or ".." in value or value.endswith((".", ".lock")):
        raise UnsafePathError(
            f"worktreeId {value!r} is not allowed: use 1-64 letters, digits, '.', '_' or '-',"
            " starting with a letter or digit, without '..'",
            worktree_id="",
            value=value,
        )
    return value


def check_name(value: str, what: str = "repository name") -> str:
    """One safe path segment (a repository's directory name)."""
    if not value or value in (".", "..") or "/" in value or _CONTROL.search(value):
        raise UnsafePathError(f"{what} {value!r} cannot be used as a directory name", value=value)
    return value


def check_absolute(value: object, what: str) -> Path:
    """An absolute, normalized path without control characters (not yet checked on disk)."""
    if not isinstance(value, str) or not value:
        raise UnsafePathError(f"{what} must be a non-empty string", value=repr(value))
    if _CONTROL.search(value):
        raise UnsafePathError(f"{what} contains control characters", value=repr(value))
    if not value.startswith("/"):
        raise UnsafePathError(f"{what} must be an absolute path: {value!r}", value=value)
    if "//" in value or (os.path.normpath(value) != value.rstrip("/") and value != "/"):
        raise UnsafePathError(
            f"{what} must be a normalized path (no '.', '..' or '//'): {value!r}", value=value
        )
    return Path(value.rstrip("/") or "/")


def symlink_on_way(path: Path) -> Path | None:
    """The first existing part of ``path`` (itself included) that is a symlink, if any."""
    for part in (*reversed(path.parents), path):
        if part.is_symlink():
            return part
        if not part.exists():
            return None
    return None


def check_root(value: object) -> Path:
    root = check_absolute(value, "worktree root")
    if root == Path("/"):
        raise UnsafePathError("the filesystem root cannot be the worktree root", value="/")
    link = symlink_on_way(root)
    if link is not None:
        raise UnsafePathError(
            f"worktree root {root} passes through the symlink {link};"
            f" use the real path {root.resolve()}",
            value=str(root),
        )
    if root.exists() and not root.is_dir():
        raise UnsafePathError(
            f"worktree root {root} exists and is not a directory", value=str(root)
        )
    return root


def check_managed_path(path: Path, worktree_id: str, name: str, roots: Iterable[Path]) -> Path:
    """``path`` if it is exactly ``<root>/<worktree_id>/<name>`` for one of ``roots`` and no
    part of it is a symlink; :class:`UnsafePathError` otherwise."""
    if path.parent.name != worktree_id or path.name != name:
        raise UnsafePathError(
            f"{path} is not <root>/{worktree_id}/{name}", worktree_id=worktree_id, value=str(path)
        )
    if path.parent.parent not in set(roots):
        raise UnsafePathError(
            f"{path} is not under the worktree root or a known root",
            worktree_id=worktree_id,
            value=str(path),
        )
    link = symlink_on_way(path)
    if link is not None:
        raise UnsafePathError(
            f"{path} passes through the symlink {link}; hangar does not follow it",
            worktree_id=worktree_id,
            value=str(path),
        )
    return path


def is_within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents
