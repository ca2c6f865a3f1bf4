"""The log of ``hangar serve``: ``$HANGAR_HOME/logs/hangar-serve.log``, rotated.

Everything the hub logs (warnings, errors with their tracebacks, start and stop) goes to
stderr as before and to this file. The file is rotated when it reaches :data:`MAX_BYTES`;
:data:`BACKUPS` older files are kept (``hangar-serve.log.1`` … ``.3``), so the folder never
holds more than about 20 MB. The folder is private (0700) like the rest of the home, and the
current file is created 0600.
"""

from __future__ import annotations

import logging
from logging.handlers import RotatingFileHandler
from pathlib import Path

from hangar.private_files import create_private_file, make_private_dir

LOG_NAME = "hangar-serve.log"
MAX_BYTES = 5 * 1024 * 1024
BACKUPS = 3
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def open_server_log(
    logs_dir: Path, max_bytes: int = MAX_BYTES, backups: int = BACKUPS
) -> RotatingFileHandler:
    """A handler writing the rotated server log in ``logs_dir`` (created if needed)."""
    make_private_dir(logs_dir)
    path = logs_dir / LOG_NAME
    create_private_file(path)
    handler = RotatingFileHandler(path, maxBytes=max_bytes, backupCount=backups, encoding="utf-8")
    handler.setFormatter(logging.Formatter(FORMAT))
    return handler
