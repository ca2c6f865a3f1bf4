"""Running git for the worktree store: one place that decides how git is called.

Every call gets a clean environment (no inherited ``GIT_*`` variable can redirect it to another
repository or index), no terminal prompts, the C locale, and no repository hooks or fsmonitor:
preparing, snapshotting or restoring a worktree never runs code the repository ships. Commits
hangar writes (snapshots) carry a fixed identity, so a machine without ``user.name`` works.
A call that does not finish within its timeout is killed and reported, never waited on forever.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from hangar.errors import HangarError

DEFAULT_TIMEOUT = 120.0
IDENTITY = {
    "GIT_AUTHOR_NAME": "hangar",
    "GIT_AUTHOR_EMAIL": "hangar@localhost",
    "GIT_COMMITTER_NAME": "hangar",
    "GIT_COMMITTER_EMAIL": "hangar@localhost",
}
_SAFE_CONFIG = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")


@dataclass(eq=False)
class GitFailed(HangarError):
    """git exited non-zero (or timed out); ``stderr`` is git's own explanation."""

    args: tuple[str, ...] = ()
    returncode: int = 0
    stderr: str = ""
    code: ClassVar[str] = "git_failed"
    http_status: ClassVar[int] = 500

    def render(self) -> str:
        what = self.message or f"git {' '.join(self.args[:3])} failed"
        detail = self.stderr.strip().splitlines()
        return f"{what}: {detail[-1]}" if detail else what

    def details(self) -> dict[str, Any]:
        return {"args": list(self.args), "returncode": self.returncode, "stderr": self.stderr}


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(IDENTITY)
    env.update(GIT_TERMINAL_PROMPT="0", LC_ALL="C", LANGUAGE="C")
    if extra:
        env.update(extra)
    return env


@dataclass(frozen=True)
class Git:
    """git run in ``cwd`` (a working tree, or any directory inside a repository)."""

    cwd: Path
    env: Mapping[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT

    def with_index(self, index_file: Path) -> Git:
        """The same repository with a private index: the user's index is never touched."""
        return Git(self.cwd, {**self.env, "GIT_INDEX_FILE": str(index_file)}, self.timeout)

    def run(
        self,
        *args: str,
        input: bytes | None = None,
        check: bool = True,
        what: str = "",
    ) -> subprocess.CompletedProcess[bytes]:
        argv = ["git", *_SAFE_CONFIG, *args]
        try:
            done = subprocess.run(
                argv,
                cwd=self.cwd,
                env=git_env(self.env),
                input=input,
                capture_output=True,
                timeout=self.timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise GitFailed(
                message=what or f"git {args[0]} did not finish within {self.timeout:g} s",
                args=tuple(args),
                returncode=-1,
            ) from None
        except FileNotFoundError as exc:  # no git, or cwd vanished
            raise GitFailed(message=what or f"cannot run git: {exc}", args=tuple(args)) from None
        if check and done.returncode != 0:
            raise GitFailed(
                message=what,
                args=tuple(args),
                returncode=done.returncode,
                stderr=done.stderr.decode("utf-8", "replace"),
            )
        return done

    def out(self, *args: str, input: bytes | None = None, what: str = "") -> str:
        """stdout of a successful call, decoded and stripped."""
        return os.fsdecode(self.run(*args, input=input, what=what).stdout).strip()

    def maybe(self, *args: str) -> str | None:
        """stdout of the call, or ``None`` when git exits non-zero (a plain "no")."""
        done = self.run(*args, check=False)
        return os.fsdecode(done.stdout).strip() if done.returncode == 0 else None

    def nul_list(self, *args: str, input: bytes | None = None) -> list[str]:
        """NUL-separated output (``-z``) as a list of paths."""
        raw = self.run(*args, input=input).stdout
        return [os.fsdecode(part) for part in raw.split(b"\0") if part]


T = TypeVar("T")


def in_chunks(items: Sequence[T], size: int = 400) -> list[Sequence[T]]:
    """Argument lists short enough for any ``ARG_MAX``."""
    return [items[i : i + size] for i in range(0, len(items), size)]
