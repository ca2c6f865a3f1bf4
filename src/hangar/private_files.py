"""``$HANGAR_HOME`` is private to its user: the folder 0700, the files hangar writes 0600.

The home holds a full-text index of every transcript (``executor.db``), the hub database, the
hub token, deleted sessions (``trash/``) and unsent run messages (``local-run-spool/``), so
nobody else on the machine may read any of it.

- :func:`secure_home` creates the home 0700 and tightens what an older hangar (or a loose
  umask) left readable: the home, the databases with their ``-wal``/``-shm``/``-journal``
  files, ``token``, ``device.json``, and the folders ``trash/``, ``logs/`` and
  ``attachments/`` with what is directly in them, ``local-run-spool/`` and ``turn-inputs/``
  with everything in them.
  It only removes group and other bits, never adds any, and leaves symbolic links alone.
- :func:`create_private_file` makes an empty 0600 file if there is none, before SQLite opens
  it: SQLite gives the ``-wal`` and ``-shm`` files the mode of the database file.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from hangar.paths import HangarPaths

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


def _tighten(path: Path) -> None:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        return
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        with contextlib.suppress(FileNotFoundError):
            path.chmod(mode & ~0o077)


def make_private_dir(path: Path) -> None:
    """Create ``path`` (and missing parents) with the folder itself 0700."""
    path.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    _tighten(path)


def create_private_file(path: Path) -> None:
    """Create ``path`` empty with mode 0600 unless it exists; tighten it if it does."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
    _tighten(path)


def database_files(path: Path) -> list[Path]:
    """A SQLite database and the side files SQLite keeps next to it."""
    return [path, *(path.with_name(path.name + suffix) for suffix in SQLITE_SIDE_FILES)]


def secure_home(paths: HangarPaths) -> None:
    """Create ``$HANGAR_HOME`` 0700 and tighten what is already in it (see the module doc)."""
    make_private_dir(paths.home)
    for path in (
        *database_files(paths.executor_db),
        *database_files(paths.hub_db),
        paths.token_file,
        paths.device_file,
    ):
        _tighten(path)
    for folder, walk in (
        (paths.trash_dir, False),
        (paths.logs_dir, False),
        (paths.attachments_dir, False),
        (paths.spool_dir, True),
        (paths.turn_inputs_dir, True),
    ):
        _tighten(folder)
        if folder.is_dir() and not folder.is_symlink():
            for child in folder.rglob("*") if walk else folder.iterdir():
                _tighten(child)
