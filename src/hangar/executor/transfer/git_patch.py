"""The light git patch of a git fork (RW-306, RW-310..312), with real git.

On the source: :func:`source_facts` names the remote (``origin``, else the first remote),
``HEAD`` and the base the local commits start from — the parent of the oldest commit of
``HEAD`` that no remote-tracking ref has (``HEAD`` itself when there is none).
:func:`patch_files` makes the patch from that base: the local commits as a git bundle
(``HEAD ^base``: only their objects), uncommitted changes of tracked files as
``git diff --binary HEAD`` (staged and unstaged), and every untracked file git does not ignore,
verbatim. The repository itself is never packed.

On the target: :func:`check_target` answers whether a project has the same remote and which
commits it has; :func:`apply_patch` fetches the bundle into the project's repository, and in
the detached worktree at ``HEAD`` applies the diff and writes the untracked files (refusing a
path that leaves the worktree or runs through a symlink).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hangar.executor.transfer.package import BadPackage, safe_name
from hangar.executor.worktrees.git import Git

BUNDLE = "git/commits.bundle"
DIFF = "git/tracked.diff"
UNTRACKED = "untracked"


def is_git(path: Path) -> bool:
    return Git(path).maybe("rev-parse", "--is-inside-work-tree") == "true"


def remote_url(git: Git) -> str | None:
    names = (git.maybe("remote") or "").split()
    if not names:
        return None
    name = "origin" if "origin" in names else names[0]
    return git.maybe("remote", "get-url", name)


def same_remote(a: str | None, b: str | None) -> bool:
    """Remote URLs naming the same repository (a trailing ``/`` or ``.git`` aside)."""

    def norm(url: str) -> str:
        url = url.strip().rstrip("/")
        return url[:-4] if url.endswith(".git") else url

    return a is not None and b is not None and norm(a) == norm(b)


def source_facts(path: Path) -> tuple[str | None, str, str, int]:
    """``(remote url, head, base, number of local commits)`` of the repository at ``path``."""
    git = Git(path)
    head = git.run("rev-parse", "HEAD^{commit}").stdout.decode().strip()
    local = (git.maybe("rev-list", "--topo-order", "HEAD", "--not", "--remotes") or "").split()
    if not local:
        return remote_url(git), head, head, 0
    oldest = local[-1]
    base = git.maybe("rev-parse", "--verify", "-q", f"{oldest}^1") or oldest
    return remote_url(git), head, base, len(local)


def patch_files(path: Path, base: str) -> dict[str, bytes]:
    """The patch members (see the module docstring) of the repository at ``path``."""
    git = Git(path)
    files: dict[str, bytes] = {}
    head = git.run("rev-parse", "HEAD^{commit}").stdout.decode().strip()
    if head != base:
        with tempfile.TemporaryDirectory(prefix="hangar-bundle-") as folder:
            bundle = Path(folder) / "commits.bundle"
            git.run("bundle", "create", "-q", str(bundle), "HEAD", f"^{base}")
            files[BUNDLE] = bundle.read_bytes()
    diff = git.run("diff", "--binary", "--no-color", "--no-ext-diff", "HEAD").stdout
    if diff:
        files[DIFF] = diff
    for name in git.nul_list("ls-files", "-z", "--others", "--exclude-standard"):
        item = path / name
        if item.is_symlink() or not item.is_file():
            continue  # a symlink or special file is not content to carry
        files[f"{UNTRACKED}/{safe_name(name)}"] = item.read_bytes()
    return files


def check_target(path: Path, remote: str, commits: list[str]) -> tuple[bool, str | None, list[str]]:
    """``(is git, its remote, the commits it has)`` for the project at ``path``."""
    if not is_git(path):
        return False, None, []
    git = Git(path)
    found = [c for c in commits if git.maybe("cat-file", "-e", f"{c}^{{commit}}") is not None]
    return True, remote_url(git), found


def fetch_bundle(repository: Path, bundle: bytes, head: str) -> None:
    """Bring the bundle's commits into ``repository`` (its objects only; no ref moves)."""
    git = Git(repository)
    with tempfile.TemporaryDirectory(prefix="hangar-bundle-") as folder:
        path = Path(folder) / "commits.bundle"
        path.write_bytes(bundle)
        git.run("bundle", "verify", "-q", str(path), what="the package's bundle is not usable")
        git.run("fetch", "-q", "--no-tags", str(path), "HEAD", what="git could not fetch")
    if git.maybe("cat-file", "-e", f"{head}^{{commit}}") is None:
        raise BadPackage(f"the package's commits do not lead to {head}")


def apply_patch(worktree: Path, diff: bytes | None, untracked: dict[str, bytes]) -> None:
    """The uncommitted changes and the untracked overlay, in the worktree at ``HEAD``."""
    if diff:
        Git(worktree).run("apply", "--binary", "--whitespace=nowarn", "-", input=diff,
                          what="the tracked changes do not apply")  # fmt: skip
    root = worktree.resolve()
    for name, content in sorted(untracked.items()):
        target = root / safe_name(name)
        parent = target.parent
        parent.mkdir(parents=True, exist_ok=True)
        if parent.resolve() != parent or not parent.resolve().is_relative_to(root):
            raise BadPackage(f"untracked file {name!r} would leave the worktree")
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
