"""The trash: files leave and come back byte for byte until purged."""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from hangar.errors import CorruptFileError
from hangar.executor import trash
from hangar.executor.trash import TrashConflictError


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _session(tmp_path: Path) -> list[Path]:
    root = tmp_path / "agent" / "projects" / "-p"
    (root / "s1" / "subagents").mkdir(parents=True)
    main = root / "s1.jsonl"
    main.write_bytes(os.urandom(300_000) + b"\n")
    child = root / "s1" / "subagents" / "agent-1.jsonl"
    child.write_bytes(b'{"type":"user"}\n' * 100)
    return [main, child]


def test_move_then_restore_gives_back_every_byte(tmp_path: Path) -> None:
    """Deleted files are recoverable with their exact content until purge."""
    files = _session(tmp_path)
    before = {p: _digest(p) for p in files}
    root = tmp_path / "trash"
    manifest = trash.move_to_trash(root, "t1", files, {"localTaskId": "t1"})
    assert manifest["state"] == "complete"
    assert not any(p.exists() for p in files)
    stored = json.loads((root / "t1" / "manifest.json").read_text())
    assert [f["sha256"] for f in stored["files"]] == [before[p] for p in files]
    trash.restore(root, "t1")
    assert {p: _digest(p) for p in files} == before
    assert not (root / "t1").exists()


def test_manifest_records_sizes_and_paths(tmp_path: Path) -> None:
    files = _session(tmp_path)
    sizes = [p.stat().st_size for p in files]
    manifest = trash.move_to_trash(tmp_path / "trash", "t1", files, {})
    assert [f["original"] for f in manifest["files"]] == [str(p) for p in files]
    assert [f["size"] for f in manifest["files"]] == sizes


def test_interrupted_move_is_finished_by_a_second_call(tmp_path: Path) -> None:
    """A crash after the manifest and the first move loses nothing; re-running finishes."""
    files = _session(tmp_path)
    before = {p: _digest(p) for p in files}
    root = tmp_path / "trash"
    manifest = trash.move_to_trash(root, "t1", files, {})
    # Recreate the on-disk state of a worker killed between the two file moves.
    (root / "t1" / manifest["files"][1]["stored"]).rename(files[1])
    manifest["state"] = "moving"
    (root / "t1" / "manifest.json").write_text(json.dumps(manifest))
    assert files[1].exists() and not files[0].exists()
    again = trash.move_to_trash(root, "t1", files, {})
    assert again["state"] == "complete"
    assert not any(p.exists() for p in files)
    trash.restore(root, "t1")
    assert {p: _digest(p) for p in files} == before


def test_restore_refuses_when_the_original_path_has_other_content(tmp_path: Path) -> None:
    files = _session(tmp_path)
    root = tmp_path / "trash"
    trash.move_to_trash(root, "t1", files, {})
    files[0].write_bytes(b"someone else's file\n")
    with pytest.raises(TrashConflictError):
        trash.restore(root, "t1")
    assert files[0].read_bytes() == b"someone else's file\n"
    assert (root / "t1" / "manifest.json").exists()
    assert not files[1].exists()  # nothing was restored half-way


def test_restore_refuses_a_tampered_trash_copy(tmp_path: Path) -> None:
    files = _session(tmp_path)
    root = tmp_path / "trash"
    manifest = trash.move_to_trash(root, "t1", files, {})
    stored = root / "t1" / manifest["files"][1]["stored"]
    stored.write_bytes(b"changed\n")
    with pytest.raises(CorruptFileError):
        trash.restore(root, "t1")
    assert not files[0].exists()


def test_symlinks_are_never_trashed(tmp_path: Path) -> None:
    target = tmp_path / "outside.jsonl"
    target.write_text("x\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    manifest = trash.move_to_trash(tmp_path / "trash", "t1", [link], {})
    assert manifest["files"] == []
    assert link.is_symlink() and target.read_text() == "x\n"


def test_purge_expired_keeps_recent_entries(tmp_path: Path) -> None:
    files = _session(tmp_path)
    root = tmp_path / "trash"
    trash.move_to_trash(root, "old", files[:1], {})
    trash.move_to_trash(root, "new", files[1:], {})
    later = datetime.now(UTC) + timedelta(days=31)
    manifest = json.loads((root / "new" / "manifest.json").read_text())
    manifest["deletedAt"] = later.isoformat()
    (root / "new" / "manifest.json").write_text(json.dumps(manifest))
    assert trash.purge_expired(root, 30, now=later) == ["old"]
    assert (root / "new").exists() and not (root / "old").exists()
