"""Worktree snapshots: every uncommitted byte into a hidden ref, and back (RW-185..188).

A snapshot is one commit ``W`` on ``refs/hangar/worktree-snapshots/<worktreeId>`` in the
repository, laid out as ``git stash`` lays out its commits:

* ``W``'s tree is the working directory as it is: tracked files (edited or not), untracked
  files that are not ignored, symlinks, the executable bit; deleted files are absent;
* ``W``'s first parent is the worktree's ``HEAD`` (so commits made in the worktree stay
  reachable), its second parent ``I`` holds the index (what was staged);
* ``W``'s message ends with a JSON line: original path, the branch ``HEAD`` was on, and the
  exact permission bits of files that are neither ``0644`` nor ``0755``.

Everything goes through git plumbing with private index files (``GIT_INDEX_FILE``): the
worktree's own index and the user's main workspace are never written. Files are hashed with
``--no-filters`` and written back byte for byte, so no clean/smudge filter (LFS), end-of-line
conversion or ``.gitattributes`` rule can change a byte on the way.

Refused, with the directory left as it was: unresolved merge conflicts, skip-worktree
(sparse) entries, initialized submodules and nested repositories (hangar cannot snapshot
inside them), special files (FIFOs, sockets, devices). Ignored files are not in the snapshot;
their top-level entries are listed in the result so the caller can say what was dropped.
Git cannot hold empty directories or directory modes, so those are not restored.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from hangar.executor.worktrees.errors import RestoreError, SnapshotError
from hangar.executor.worktrees.git import Git, GitFailed, git_env, in_chunks

REF_PREFIX = "refs/hangar/worktree-snapshots/"
_MARKER = "hangar-snapshot: "
_GITLINK = "160000"
_SYMLINK = "120000"


def snapshot_ref(worktree_id: str) -> str:
    return REF_PREFIX + worktree_id


@dataclass
class Capture:
    """What the directory holds, as git objects already written to the repository."""

    tree: str
    index_tree: str
    files: int
    modes: dict[str, str] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class WrittenSnapshot:
    ref: str
    commit: str
    head: str
    head_ref: str | None
    capture: Capture


def _fail(worktree_id: str, path: Path, reason: str) -> SnapshotError:
    return SnapshotError(worktree_id=worktree_id, path=str(path), reason=reason)


def capture(git: Git, worktree_id: str, path: Path) -> Capture:
    """Write the directory's content and its index as trees; nothing outside the object
    store changes. :class:`SnapshotError` names what prevents a faithful snapshot."""
    with tempfile.TemporaryDirectory(prefix="hangar-snap-") as scratch:
        tmp = Path(scratch)
        index_copy = tmp / "index"
        real_index = Path(git.out("rev-parse", "--path-format=absolute", "--git-path", "index"))
        copy = git.with_index(index_copy)
        if real_index.is_file():
            shutil.copyfile(real_index, index_copy)
        else:
            copy.run("read-tree", "HEAD")
        tracked = _index_entries(copy, worktree_id, path)
        try:
            index_tree = copy.out("write-tree")
        except GitFailed as exc:
            raise _fail(worktree_id, path, f"the index cannot be written: {exc}") from None
        untracked = copy.nul_list("ls-files", "-z", "--others", "--exclude-standard")
        nested = [p for p in untracked if p.endswith("/")]
        if nested:
            raise _fail(worktree_id, path, f"nested git repository at {nested[0].rstrip('/')}")
        ignored = copy.nul_list(
            "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"
        )
        entries, modes, files, links = _scan(worktree_id, path, tracked, untracked)
        lines = [f"{mode} {sha}\t{name}" for name, (mode, sha) in entries.items()]
        lines += _hash(git, path, files, worktree_id)
        lines += _hash_links(git, tmp, path, links)
        fresh = git.with_index(tmp / "snapshot-index")
        fresh.run("update-index", "-z", "--index-info", input=_nul_join(lines))
        tree = fresh.out("write-tree")
        return Capture(tree, index_tree, len(lines), modes, ignored)


def _nul_join(lines: list[str]) -> bytes:
    return b"".join(os.fsencode(line) + b"\0" for line in lines)


def _index_entries(git: Git, worktree_id: str, path: Path) -> dict[str, tuple[str, str]]:
    """Index entries ``path → (mode, sha)``; refuses conflicts, sparse entries and
    initialized submodules."""
    out: dict[str, tuple[str, str]] = {}
    for line in git.nul_list("ls-files", "-z", "--stage", "-t"):
        meta, _, name = line.partition("\t")
        tag, mode, sha, stage = meta.split(" ")
        if stage != "0":
            raise _fail(worktree_id, path, f"unresolved merge conflict in {name}")
        if tag == "S":
            raise _fail(worktree_id, path, f"sparse-checkout entry {name} is not supported")
        if mode == _GITLINK and (path / name / ".git").exists():
            raise _fail(
                worktree_id,
                path,
                f"initialized submodule at {name}: commit and push inside it, then"
                f" `git submodule deinit {name}`, or remove the worktree yourself",
            )
        out[name] = (mode, sha)
    return out


def _scan(
    worktree_id: str, path: Path, tracked: dict[str, tuple[str, str]], untracked: list[str]
) -> tuple[dict[str, tuple[str, str]], dict[str, str], list[tuple[str, str]], list[str]]:
    """Sort every candidate path by what is on disk now: gitlinks kept as entries, regular
    files (with their git mode) to hash, symlinks to hash; deleted ones dropped."""
    entries: dict[str, tuple[str, str]] = {}
    modes: dict[str, str] = {}
    files: list[tuple[str, str]] = []
    links: list[str] = []
    for name in [*tracked, *untracked]:
        if tracked.get(name, ("", ""))[0] == _GITLINK:
            entries[name] = tracked[name]
            continue
        try:
            st = (path / name).lstat()
        except (FileNotFoundError, NotADirectoryError):
            continue  # deleted in the worktree: absent from the snapshot
        if stat.S_ISLNK(st.st_mode):
            links.append(name)
        elif stat.S_ISREG(st.st_mode):
            executable = bool(st.st_mode & stat.S_IXUSR)
            files.append((name, "100755" if executable else "100644"))
            perm = stat.S_IMODE(st.st_mode)
            if perm != (0o755 if executable else 0o644):
                modes[name] = f"{perm:04o}"
        elif stat.S_ISDIR(st.st_mode):
            continue  # a tracked file replaced by a folder: its files are listed as untracked
        else:
            raise _fail(worktree_id, path, f"{name} is a special file (FIFO, socket or device)")
    return entries, modes, files, links


def _hash(git: Git, path: Path, files: list[tuple[str, str]], worktree_id: str) -> list[str]:
    lines: list[str] = []
    for chunk in in_chunks(files):
        names = [name for name, _ in chunk]
        try:
            shas = git.out("hash-object", "-w", "--no-filters", "--", *names).split()
        except GitFailed as exc:
            raise _fail(worktree_id, path, f"cannot read a file: {exc}") from None
        lines += [f"{mode} {sha}\t{name}" for (name, mode), sha in zip(chunk, shas, strict=True)]
    return lines


def _hash_links(git: Git, tmp: Path, path: Path, links: list[str]) -> list[str]:
    lines: list[str] = []
    for i, name in enumerate(links):
        target = tmp / f"link-{i}"
        # os.readlink, not Path.readlink: a Path would normalize the target ("a//b", "./x").
        target.write_bytes(os.fsencode(os.readlink(path / name)))  # noqa: PTH115
        sha = git.out("hash-object", "-w", "--no-filters", "--", str(target))
        lines.append(f"{_SYMLINK} {sha}\t{name}")
    return lines


def write(git: Git, worktree_id: str, path: Path, created_at: str) -> WrittenSnapshot:
    """Capture ``path`` and point the snapshot ref at it (the ref's reflog keeps earlier
    snapshots of the same id)."""
    head = git.maybe("rev-parse", "--verify", "-q", "HEAD^{commit}")
    if not head:
        raise _fail(worktree_id, path, "the worktree has no commit checked out")
    head_ref = git.maybe("symbolic-ref", "-q", "HEAD") or None
    found = capture(git, worktree_id, path)
    index_commit = git.out(
        "commit-tree", found.index_tree, "-p", head, input=b"hangar: index of a worktree\n"
    )
    meta = {"path": str(path), "headRef": head_ref, "modes": found.modes, "createdAt": created_at}
    message = f"hangar worktree snapshot {worktree_id}\n\n{_MARKER}{json.dumps(meta)}\n"
    commit = git.out(
        "commit-tree", found.tree, "-p", head, "-p", index_commit, input=message.encode()
    )
    ref = snapshot_ref(worktree_id)
    git.run("update-ref", "--create-reflog", "-m", "hangar: snapshot before removal", ref, commit)
    if git.maybe("rev-parse", "--verify", "-q", ref) != commit:
        raise _fail(worktree_id, path, f"{ref} did not take the snapshot commit")
    return WrittenSnapshot(ref, commit, head, head_ref, found)


@dataclass(frozen=True)
class Restored:
    path: Path
    head: str
    head_ref: str | None
    files: int


def restore(repo: Git, worktree_id: str, commit: str, path: Path) -> Restored:
    """Recreate ``path`` (which must not exist) as a worktree of ``repo`` from snapshot
    ``commit``: files byte for byte and mode for mode, the index as it was, the branch
    ``HEAD`` was on when it is still free. The result is verified against the snapshot."""
    parents = repo.out("rev-list", "--parents", "-n", "1", commit).split()
    if len(parents) != 3:
        raise RestoreError(f"{commit} is not a hangar snapshot", worktree_id=worktree_id)
    _, head, index_commit = parents
    meta = _meta(repo, commit)
    expected = repo.out("rev-parse", f"{commit}^{{tree}}")
    repo.run("worktree", "add", "--no-checkout", "--detach", str(path), head)
    wt = Git(path, timeout=repo.timeout)
    try:
        count = _write_files(wt, commit, path, meta.get("modes") or {})
        wt.run("read-tree", f"{index_commit}^{{tree}}")
        wt.run("update-index", "-q", "--refresh", check=False)
        head_ref = _reattach(wt, meta.get("headRef"), head)
        again = capture(wt, worktree_id, path)
        if again.tree != expected:
            raise RestoreError(
                f"restored {path} does not match snapshot {commit}",
                worktree_id=worktree_id,
                path=str(path),
            )
    except (OSError, GitFailed, RestoreError, SnapshotError) as exc:
        # Only what this call created goes: the snapshot ref still holds every byte.
        repo.run("worktree", "remove", "--force", str(path), check=False)
        shutil.rmtree(path, ignore_errors=True)
        if isinstance(exc, RestoreError):
            raise
        raise RestoreError(
            f"cannot restore {path} from {commit}: {exc}", worktree_id=worktree_id, path=str(path)
        ) from None
    return Restored(path, head, head_ref, count)


def _meta(repo: Git, commit: str) -> dict[str, object]:
    body = repo.out("cat-file", "commit", commit)
    for line in reversed(body.splitlines()):
        if line.startswith(_MARKER):
            try:
                value = json.loads(line[len(_MARKER) :])
            except ValueError:
                break
            return value if isinstance(value, dict) else {}
    return {}


def _write_files(wt: Git, commit: str, path: Path, modes: object) -> int:
    entries = []
    for line in wt.nul_list("ls-tree", "-r", "-z", "--full-tree", commit):
        meta, _, name = line.partition("\t")
        mode, kind, sha = meta.split(" ")
        entries.append((mode, kind, sha, name))
    exact = modes if isinstance(modes, dict) else {}
    blobs = [(mode, sha, name) for mode, kind, sha, name in entries if kind == "blob"]
    for _, kind, _, name in entries:
        if kind == "commit":  # an uninitialized submodule: an empty directory, as git does
            _safe_parent(path, name).mkdir(exist_ok=True)
    with subprocess.Popen(
        ["git", "cat-file", "--batch"],
        cwd=path,
        env=git_env(wt.env),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    ) as reader:
        assert reader.stdin is not None and reader.stdout is not None
        for mode, sha, name in blobs:
            reader.stdin.write(sha.encode() + b"\n")
            reader.stdin.flush()
            header = reader.stdout.readline().split()
            size = int(header[2])
            target = _safe_parent(path, name)
            if mode == _SYMLINK:
                target.symlink_to(os.fsdecode(reader.stdout.read(size)))
            else:
                perm = int(str(exact.get(name, "")), 8) if name in exact else None
                _write_blob(reader.stdout, size, target, mode, perm)
            reader.stdout.read(1)  # the newline after each object
        reader.stdin.close()
    return len(blobs)


def _safe_parent(root: Path, name: str) -> Path:
    """``root/name`` with its folders created; refuses a path that leaves ``root``."""
    target = root / name
    if ".." in Path(name).parts or Path(name).is_absolute():
        raise RestoreError(f"snapshot entry {name!r} leaves the worktree", path=str(root))
    folder = root
    for part in Path(name).parts[:-1]:
        folder = folder / part
        if folder.is_symlink():
            raise RestoreError(f"{folder} is a symlink; not following it", path=str(root))
        folder.mkdir(exist_ok=True)
    return target


def _write_blob(stream: object, size: int, target: Path, mode: str, perm: int | None) -> None:
    wanted = perm if perm is not None else (0o755 if mode == "100755" else 0o644)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as out:
        left = size
        while left:
            chunk = stream.read(min(left, 1 << 20))  # type: ignore[attr-defined]
            if not chunk:
                raise RestoreError(f"snapshot object for {target} ended early")
            out.write(chunk)
            left -= len(chunk)
        os.fchmod(out.fileno(), wanted)


def _reattach(wt: Git, head_ref: object, head: str) -> str | None:
    """Put ``HEAD`` back on its branch when that branch still points at ``head`` and no
    other worktree has it checked out; otherwise stay detached."""
    if not isinstance(head_ref, str) or not head_ref.startswith("refs/heads/"):
        return None
    if wt.maybe("rev-parse", "--verify", "-q", head_ref) != head:
        return None
    listing = wt.out("worktree", "list", "--porcelain")
    if f"branch {head_ref}" in listing.splitlines():
        return None
    wt.run("symbolic-ref", "HEAD", head_ref)
    return head_ref
