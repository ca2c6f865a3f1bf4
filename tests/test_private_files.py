"""``$HANGAR_HOME`` is 0700 and what hangar writes there 0600 (hardening item 12)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from hangar.composition import LocalHangar
from hangar.localrun.spool import Spool
from hangar.paths import hangar_paths
from hangar.protocol.turns import TurnAttachment
from hangar.token_file import load_or_create_token

LONG_TOKEN = "x" * 40


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture
def loose_umask() -> Iterator[None]:
    """The common default umask: without care, every file would be world-readable."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


@contextmanager
def using_everything(home: Path) -> Iterator[None]:
    """Both databases open (written to), the token, the spool, the trash and an uploaded
    attachment in use (stored by the hub, then fetched by the executor for a turn)."""
    with LocalHangar.open() as local:
        local.executor.refresh_index()
        ctx = local.create_app(LONG_TOKEN).state.hub  # writes the workspace into hub.db
        saved = ctx.attachments.save(
            ctx.workspace, ctx.workspace.owner_id, "a.txt", "text/plain", b"hi"
        )
        upload = TurnAttachment(
            name="a.txt", mime_type="text/plain", size=2, attachment_id=saved["attachmentId"]
        )
        (handed,) = local.executor.turn_inputs.resolve("task-1", [upload])
        assert handed.path.read_bytes() == b"hi"
        load_or_create_token(hangar_paths().token_file, environ={})
        Spool(hangar_paths().spool_dir).put_message("run-1", {"sourceKey": "k", "type": "text"})
        local.executor.deleter.drain()  # creates trash/ with the worker's lock file
        assert (home / "trash" / ".delete-worker.lock").exists()
        yield


def private_entries(home: Path) -> dict[str, int]:
    names = ["", "executor.db", "hub.db", "token", "device.json", "trash", "local-run-spool"]
    names += ["attachments", "turn-inputs"]
    names += [n + s for n in ("executor.db", "hub.db") for s in ("-wal", "-shm")]
    found = {name: mode(home / name) for name in names if (home / name).exists()}
    folders = [home / name for name in ("local-run-spool", "trash", "attachments", "turn-inputs")]
    for path in (child for folder in folders for child in folder.rglob("*")):
        found[str(path.relative_to(home))] = mode(path)
    return found


def test_hardening_12_a_new_home_is_private(loose_umask: None, hangar_home: Path) -> None:
    with using_everything(hangar_home):  # -wal and -shm exist while the databases are open
        found = private_entries(hangar_home)
    for name in ("executor.db-wal", "executor.db-shm", "hub.db", "token", "device.json"):
        assert name in found, f"{name} was not created"
    assert found.pop("") == 0o700
    assert found.pop("trash") == 0o700
    assert found.pop("local-run-spool") == 0o700
    assert found.pop("attachments") == 0o700
    assert found.pop("turn-inputs") == 0o700
    assert all(value & 0o077 == 0 for value in found.values()), found
    files = {name: value for name, value in found.items() if (hangar_home / name).is_file()}
    assert set(files.values()) == {0o600}, files


def test_hardening_12_an_existing_loose_home_is_tightened_on_start(
    loose_umask: None, hangar_home: Path
) -> None:
    with using_everything(hangar_home):
        pass
    for path in [hangar_home, *hangar_home.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    with LocalHangar.open():
        found = private_entries(hangar_home)
    assert all(value & 0o077 == 0 for value in found.values()), found
    assert found[""] == 0o700 and found["executor.db"] == 0o600 and found["hub.db"] == 0o600
    assert found["attachments"] == 0o700 and found["turn-inputs"] == 0o700


def test_hardening_12_tightening_never_follows_a_symlink(
    loose_umask: None, hangar_home: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "shared-log-folder"
    outside.mkdir()
    outside.chmod(0o755)
    hangar_home.mkdir()
    (hangar_home / "logs").symlink_to(outside)
    with LocalHangar.open():
        pass
    assert mode(outside) == 0o755
