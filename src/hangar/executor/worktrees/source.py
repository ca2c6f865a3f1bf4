"""The project a worktree is prepared from: its repository and the branch to start on.

Without an explicit branch the worktree starts from the project's *current* branch, read from
its ``HEAD`` (RW-270): never git's default branch, never the literal ``HEAD``. A project on a
detached ``HEAD`` needs an explicit branch. An explicit branch must be a local branch (or a
remote-tracking one such as ``origin/main``) that exists and has a commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hangar.executor.worktrees.errors import DetachedHeadError, SourceNotGitError
from hangar.executor.worktrees.git import Git, GitFailed
from hangar.executor.worktrees.safety import check_absolute, check_name


@dataclass(frozen=True)
class Source:
    path: Path
    """The project directory as given."""
    repository_root: Path
    """The repository's main working tree."""
    common_dir: Path
    name: str


@dataclass(frozen=True)
class Base:
    branch: str
    commit: str


def inspect_source(value: object) -> Source:
    path = check_absolute(value, "sourcePath")
    if not path.is_dir():
        raise SourceNotGitError(f"{path} is not a directory", source_path=str(path))
    git = Git(path)
    try:
        inside = git.maybe("rev-parse", "--is-inside-work-tree")
        if inside != "true":
            raise SourceNotGitError(
                f"{path} is not inside a git working tree", source_path=str(path)
            )
        common = Path(git.out("rev-parse", "--path-format=absolute", "--git-common-dir"))
        listing = git.out("worktree", "list", "--porcelain")
    except GitFailed as exc:
        raise SourceNotGitError(f"{path}: {exc}", source_path=str(path)) from None
    first = listing.splitlines()[0] if listing else ""
    if not first.startswith("worktree ") or "\nbare" in listing.split("\n\n")[0]:
        raise SourceNotGitError(f"{path} belongs to a bare repository", source_path=str(path))
    root = Path(first[len("worktree ") :])
    return Source(path, root, common, check_name(root.name))


def resolve_commit(source: Source, commit: str) -> Base:
    """``commit`` as a base (detached: named by its short id), when the repository has it."""
    found = Git(source.path).maybe("rev-parse", "--verify", "-q", f"{commit}^{{commit}}")
    if not found or commit.startswith("-"):
        raise SourceNotGitError(
            f"commit {commit} is not in {source.repository_root}", source_path=str(source.path)
        )
    return Base(found[:12], found)


def resolve_base(source: Source, branch: object) -> Base:
    git = Git(source.path)
    where = str(source.path)
    if branch is None or branch == "":
        current = git.maybe("symbolic-ref", "-q", "--short", "HEAD")
        if not current:
            raise DetachedHeadError(
                f"{where} is on a detached HEAD: choose a branch for the worktree",
                source_path=where,
            )
        name = current
        candidates = [f"refs/heads/{name}"]
    else:
        if not isinstance(branch, str):
            raise SourceNotGitError("branch must be a string", source_path=where)
        name = branch
        if name == "HEAD" or name.startswith("-") or "@{" in name or name == "@":
            raise SourceNotGitError(f"{name!r} is not a branch name", source_path=where)
        if git.maybe("check-ref-format", f"refs/heads/{name}") is None:
            raise SourceNotGitError(f"{name!r} is not a valid branch name", source_path=where)
        candidates = [f"refs/heads/{name}", f"refs/remotes/{name}"]
    for ref in candidates:
        commit = git.maybe("rev-parse", "--verify", "-q", f"{ref}^{{commit}}")
        if commit:
            return Base(name, commit)
    raise SourceNotGitError(
        f"branch {name!r} has no commit in {source.repository_root}", source_path=where
    )
