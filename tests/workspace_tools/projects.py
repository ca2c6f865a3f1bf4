"""A real git project with a linked worktree and Claude Code sessions in it (and in a chat).

``shop`` is a git repository in ``tmp_path`` with a linked worktree ``feature-x`` that git
itself made; one Claude Code session (its real JSONL format) ran in the repository, one in the
worktree, one in a chat folder of the test's own home.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from hub.sessions import ClaudeSession  # tests/hub, a sibling package


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout.strip()


@dataclass
class Project:
    root: Path
    worktree: Path
    chat: Path
    sessions: dict[str, ClaudeSession]


def make_project(isolated_home: Path, tmp_path: Path) -> Project:
    """The project of the module docstring, in ``tmp_path`` and the test's own home."""
    (isolated_home / ".gitconfig").write_text(
        "[user]\n\tname = Tess Ter\n\temail = tess@example.invalid\n"
    )
    root = tmp_path / "projects" / "shop"
    root.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=root)
    (root / "README.md").write_text("# shop\n")
    (root / "src").mkdir()
    (root / "src" / "cart.py").write_text("TOTAL = 0\n")
    git("add", ".", cwd=root)
    git("commit", "-q", "-m", "initial", cwd=root)
    worktree = tmp_path / "projects" / "shop.worktrees" / "feature-x"
    git("worktree", "add", "-q", "-b", "feature-x", str(worktree), cwd=root)
    (worktree / "feature.txt").write_text("only in the worktree\n")
    chat = isolated_home / "Documents" / "Codex" / "2026-11-20" / "chat"
    chat.mkdir(parents=True)
    sessions = {
        "main": ClaudeSession(isolated_home, "11111111-aaaa-4aaa-8aaa-000000000001", str(root)),
        "worktree": ClaudeSession(
            isolated_home, "22222222-bbbb-4bbb-8bbb-000000000002", str(worktree)
        ),
        "chat": ClaudeSession(isolated_home, "33333333-cccc-4ccc-8ccc-000000000003", str(chat)),
    }
    sessions["main"].user("Fix the cart").assistant("Fixed.")
    sessions["worktree"].user("Build feature x").assistant("Built.")
    sessions["chat"].user("Just a chat").assistant("Chatting.")
    return Project(root, worktree, chat, sessions)
