"""Where a task ran and which group it belongs to: Project, worktree or Conversation.

* ``chat`` — Codex-App-style conversation folders (``~/Documents/Codex/YYYY-MM-DD/<name>``
  and any ``…/Documents/Codex/…`` path) and tasks without a folder (RW-015);
* ``worktree`` — a git worktree: ``workspacePath`` stays the worktree, ``groupWorkspacePath``
  is the main repository root, ``worktreeId`` the worktree's name (RW-036..041). Decided from
  the filesystem when the path exists (``.git`` file → ``gitdir: …/worktrees/<id>`` → its
  ``commondir``), from the path's shape otherwise;
* ``workspace`` — everything else, grouped under itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from hangar.model.tasks import WorkspaceKind

_CHAT = re.compile(r"/Documents/Codex(?:/|$)")
_SHAPES = (
    # <repo>/.claude/worktrees/<id>, <repo>/.worktrees/<id>, <repo>/.git/worktrees/<id>
    re.compile(r"^(?P<root>.+?)/(?:\.claude/worktrees|\.worktrees|\.git/worktrees)/(?P<id>[^/]+)"),
    # <repo>.worktrees/<id>: worktrees kept beside the repository
    re.compile(r"^(?P<root>.+?)\.worktrees/(?P<id>[^/]+)"),
    # …/worktrees/<id>/<repo> (Codex App, hangar's own layout)
    re.compile(r"^(?P<root>)(?:.*)/worktrees/(?P<id>[^/]+)/[^/]+"),
)


@dataclass(frozen=True)
class Workspace:
    workspace_path: str
    group_workspace_path: str
    kind: WorkspaceKind
    worktree_id: str | None = None


def _git_worktree(path: Path) -> tuple[str, str] | None:
    """``(main_root, worktree_id)`` if ``path`` lies in a linked git worktree on disk."""
    for folder in (path, *path.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return None
        if not dot_git.is_file():
            continue
        try:
            text = dot_git.read_text("utf-8", errors="replace").strip()
        except OSError:
            return None
        if not text.startswith("gitdir:"):
            return None
        gitdir = (folder / text.partition(":")[2].strip()).resolve()
        if gitdir.parent.name != "worktrees":
            return None
        common = gitdir.parent.parent
        try:
            pointer = (gitdir / "commondir").read_text("utf-8").strip()
            common = (gitdir / pointer).resolve()
        except OSError:
            pass
        root = common.parent if common.name == ".git" else common
        return str(root), gitdir.name
    return None


def classify(workspace_path: str | None) -> Workspace:
    """Group and kind of a task that ran in ``workspace_path``."""
    if not workspace_path:
        return Workspace("", "", "chat")
    path = workspace_path.rstrip("/") or "/"
    if _CHAT.search(path):
        return Workspace(path, path, "chat")
    on_disk = Path(path)
    if on_disk.exists():
        found = _git_worktree(on_disk)
        if found is None:
            return Workspace(path, path, "workspace")
        return Workspace(path, found[0], "worktree", found[1])
    for shape in _SHAPES:
        match = shape.match(path)
        if match:
            return Workspace(path, match.group("root") or path, "worktree", match.group("id"))
    return Workspace(path, path, "workspace")
