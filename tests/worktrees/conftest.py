"""Real git repositories and a real executor over the test's own HANGAR_HOME.

``repo`` is a git repository in ``tmp_path`` on branch ``develop`` (while git's default branch
is configured as ``main``, so a test can tell the two apart) with a few committed files.
``claude_session`` writes a Claude Code session (its real JSONL format) whose ``cwd`` is a given
directory, so the executor's own index discovers a task there.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hangar.agents.launch import NoLauncher
from hangar.executor.service import Executor
from hangar.executor.worktrees import WorktreeService


def git(*args: str, cwd: Path, check: bool = True) -> str:
    done = subprocess.run(
        ["git", "-c", "protocol.file.allow=always", *args],
        cwd=cwd,
        check=check,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


@pytest.fixture(autouse=True)
def git_identity(isolated_home: Path) -> None:
    """A ``~/.gitconfig`` in the test's own home: an identity and a default branch."""
    (isolated_home / ".gitconfig").write_text(
        "[user]\n\tname = Tess Ter\n\temail = tess@example.invalid\n"
        "[init]\n\tdefaultBranch = main\n"
    )


def make_repo(path: Path, branch: str = "develop") -> Path:
    path.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=path)
    (path / "README.md").write_text("# demo\n")
    (path / "src").mkdir()
    (path / "src" / "app.py").write_text("print('hello')\n")
    (path / "old_name.txt").write_text("will be renamed\n")
    (path / "doomed.txt").write_text("will be deleted\n")
    (path / "staged_doomed.txt").write_text("will be deleted and staged\n")
    (path / "tool.sh").write_text("#!/bin/sh\necho tool\n")
    (path / ".gitignore").write_text("*.log\nbuild/\n")
    git("add", ".", cwd=path)
    git("commit", "-q", "-m", "initial", cwd=path)
    if branch != "main":
        git("switch", "-q", "-c", branch, cwd=path)
        (path / "README.md").write_text(f"# demo on {branch}\n")
        git("commit", "-q", "-am", f"work on {branch}", cwd=path)
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "projects" / "demo")


@pytest.fixture
def executor(isolated_home: Path) -> Iterator[Executor]:
    """This test's executor; no agent CLI is started (archiving uses the index)."""
    ex = Executor.open(launcher=NoLauncher())
    yield ex
    ex.close()


@pytest.fixture
def store(executor: Executor) -> WorktreeService:
    return executor.worktrees


def tree_state(root: Path) -> dict[str, tuple[str, str]]:
    """``relative path → (mode, sha256 or link target)`` of everything but ``.git``."""
    out: dict[str, tuple[str, str]] = {}
    for folder, dirs, files in os.walk(root):
        base = Path(folder)
        if base == root and ".git" in files:
            files.remove(".git")
        dirs[:] = [d for d in dirs if not (base == root and d == ".git")]
        for name in [*files, *(d for d in dirs if (base / d).is_symlink())]:
            path = base / name
            st = path.lstat()
            if path.is_symlink():
                content = "-> " + os.readlink(path)  # noqa: PTH115 (Path would normalize it)
            elif not stat.S_ISREG(st.st_mode):
                content = "special"  # never opened: reading a FIFO would block
            else:
                content = hashlib.sha256(path.read_bytes()).hexdigest()
            out[str(path.relative_to(root))] = (oct(st.st_mode), content)
    return out


def workspace_fingerprint(repo: Path, *, status: bool = True) -> dict[str, object]:
    """What must never change in the user's main workspace: its files, index bytes, HEAD,
    branches and (unless ``status`` is false) what ``git status`` says."""
    out: dict[str, object] = {
        "files": tree_state(repo),
        "index": hashlib.sha256((repo / ".git" / "index").read_bytes()).hexdigest(),
        "head": git("rev-parse", "HEAD", cwd=repo),
        "symbolic": git("symbolic-ref", "-q", "HEAD", cwd=repo, check=False),
        "branches": git("for-each-ref", "refs/heads", cwd=repo),
    }
    if status:
        out["status"] = git("status", "--porcelain=v1", "--ignored", cwd=repo)
    return out


ClaudeSession = Callable[..., str]


@pytest.fixture
def claude_session(isolated_home: Path) -> ClaudeSession:
    """Write a Claude Code session that ran in ``cwd``; returns its session id. A running
    session ends with a tool call that has no result yet."""

    def write(cwd: Path, *, running: bool = False, when: str = "2026-05-01T00:00:00Z") -> str:
        session = str(uuid.uuid4())
        folder = isolated_home / ".claude" / "projects" / str(cwd).replace("/", "-")
        folder.mkdir(parents=True, exist_ok=True)
        base = {"sessionId": session, "cwd": str(cwd), "isSidechain": False}
        lines = [
            {**base, "type": "user", "uuid": "u1", "timestamp": when,
             "message": {"role": "user", "content": "Work in the worktree"}},
        ]  # fmt: skip
        content: list[dict[str, object]] = [{"type": "text", "text": "Done."}]
        if running:
            content = [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                        "input": {"command": "sleep 100"}}]  # fmt: skip
        lines.append(
            {**base, "type": "assistant", "uuid": "a1", "timestamp": when,
             "message": {"id": "m1", "role": "assistant", "model": "claude-x",
                         "content": content}}
        )  # fmt: skip
        text = "".join(json.dumps(line) + "\n" for line in lines)
        (folder / f"{session}.jsonl").write_text(text)
        return session

    return write
