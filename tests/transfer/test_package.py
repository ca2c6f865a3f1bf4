"""The transfer package and the git patch on real files and real git (no agent involved)."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from hangar.executor.transfer import git_patch
from hangar.executor.transfer.package import BadPackage, build_package, open_package, sha256

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "Demo User",
    "GIT_AUTHOR_EMAIL": "demo@example.com",
    "GIT_COMMITTER_NAME": "Demo User",
    "GIT_COMMITTER_EMAIL": "demo@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, capture_output=True, check=True)
    return done.stdout.decode()


def test_a_package_with_one_byte_changed_is_refused_whole() -> None:
    """A package whose bytes no longer match the SHA-256 sent with it is refused before a
    member is read; the untouched package opens with its manifest and members."""
    data = build_package({"transferId": "t-01234567"}, {"untracked/a.txt": b"hello\n"})
    opened = open_package(data, sha256(data))
    assert opened.manifest["transferId"] == "t-01234567"
    assert opened.under("untracked") == {"a.txt": b"hello\n"}
    tampered = bytearray(data)
    tampered[len(tampered) // 2] ^= 0x01
    with pytest.raises(BadPackage) as refused:
        open_package(bytes(tampered), sha256(data))
    assert refused.value.code == "bad_package" and refused.value.http_status == 422
    assert "SHA-256" in str(refused.value)


def test_a_package_naming_a_path_outside_is_refused() -> None:
    """A member ``../escape`` or an absolute path is refused even with a matching checksum."""
    for name in ("../escape.txt", "/etc/passwd", "untracked/../../x"):
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            info = tarfile.TarInfo(name)
            info.size = 1
            tar.addfile(info, io.BytesIO(b"x"))
        data = buffer.getvalue()
        with pytest.raises(BadPackage):
            open_package(data, sha256(data))


def test_the_patch_is_light_and_reproduces_the_changes_in_a_worktree(tmp_path: Path) -> None:
    """RW-310, RW-311, RW-312: from a clone with one local commit, a staged and an unstaged
    change, a deleted tracked file, an untracked and an ignored file, the patch holds a bundle
    of that commit only (not the repository's history), the diff and the untracked file; a
    detached worktree of another clone at the source's HEAD, after fetching the bundle and
    applying the patch, has the source's files byte for byte."""
    seed = tmp_path / "seed"
    seed.mkdir()
    git(seed, "-c", "init.defaultBranch=main", "init", "-q")
    (seed / ".gitignore").write_text("*.log\n")
    for number in range(30):  # a history the patch must not carry
        (seed / "big.txt").write_text(f"revision {number}\n" * 2000)
        (seed / "gone.txt").write_text("to be deleted\n")
        git(seed, "add", "-A")
        git(seed, "commit", "-q", "-m", f"commit {number}")
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(remote))
    source, target = tmp_path / "source", tmp_path / "target"
    git(tmp_path, "clone", "-q", str(remote), str(source))
    git(tmp_path, "clone", "-q", str(remote), str(target))
    (source / "feature.py").write_text("FEATURE = True\n")
    git(source, "add", "feature.py")
    git(source, "commit", "-q", "-m", "Local feature")
    (source / "staged.txt").write_bytes(b"staged\x00bytes\r\n")
    git(source, "add", "staged.txt")
    (source / "feature.py").write_text("FEATURE = False  # unstaged\n")
    (source / "gone.txt").unlink()
    (source / "new dir").mkdir()
    (source / "new dir" / "note.md").write_text("untracked\n")
    (source / "trace.log").write_text("ignored\n")

    remote_url, head, base, local = git_patch.source_facts(source)
    assert remote_url == str(remote) and local == 1
    assert base == git(source, "rev-parse", "HEAD~1").strip()
    files = git_patch.patch_files(source, base)
    assert sorted(files) == ["git/commits.bundle", "git/tracked.diff", "untracked/new dir/note.md"]
    assert len(files["git/commits.bundle"]) < 2000  # the local commit, not 30 revisions

    is_git, target_remote, found = git_patch.check_target(target, str(remote), [head, base])
    assert is_git and git_patch.same_remote(target_remote, str(remote) + "/")
    assert found == [base]  # the target has the base, not the local commit
    git_patch.fetch_bundle(target, files["git/commits.bundle"], head)
    worktree = tmp_path / "worktrees" / "t1" / "source"
    git(target, "worktree", "add", "-q", "--detach", str(worktree), head)
    git_patch.apply_patch(
        worktree, files["git/tracked.diff"], {"new dir/note.md": files["untracked/new dir/note.md"]}
    )
    for name in ("feature.py", "staged.txt", "new dir/note.md", "big.txt", ".gitignore"):
        assert (worktree / name).read_bytes() == (source / name).read_bytes(), name
    assert not (worktree / "gone.txt").exists() and not (worktree / "trace.log").exists()


def test_an_untracked_file_through_a_symlink_is_refused(tmp_path: Path) -> None:
    """An overlay path whose directory is a symlink out of the worktree writes nothing."""
    worktree, outside = tmp_path / "worktree", tmp_path / "outside"
    worktree.mkdir()
    outside.mkdir()
    (worktree / "link").symlink_to(outside)
    with pytest.raises(BadPackage):
        git_patch.apply_patch(worktree, None, {"link/planted.txt": b"x"})
    assert list(outside.iterdir()) == []
