"""Helpers of the agents' usage facets: read a session file once, look only at the lines that
can carry token counts.

A usage scan must be cheap (every session of a home, on every ``hangar usage``): the file is
read in one call, lines are found with a byte search for their record type, and only those
lines are decoded, with typed decoders that skip the fields a count does not need. Only
regular files are read (a FIFO or device named like a session is skipped, never waited on).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import zstandard

MAX_SESSION_BYTES = 2 * 1024 * 1024 * 1024
"""Larger files are not scanned (a usage total is not worth reading more than this)."""


def read_regular(path: Path) -> bytes | None:
    """The whole file (decompressed for ``.zst``), or ``None`` when it is not a regular file
    or cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SESSION_BYTES:
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            if path.name.endswith(".zst"):
                return zstandard.ZstdDecompressor().stream_reader(handle).read()
            return handle.read()
    except (OSError, zstandard.ZstdError):
        return None
    finally:
        os.close(fd)


def lines_with(data: bytes, *markers: bytes) -> Iterator[bytes]:
    """Every complete line of ``data`` that contains one of ``markers``, in file order (an
    unfinished last line, still being written, is left out)."""
    starts: set[int] = set()
    for marker in markers:
        at = data.find(marker)
        while at != -1:
            end = data.find(b"\n", at)
            if end == -1:
                break
            starts.add(data.rfind(b"\n", 0, at) + 1)
            at = data.find(marker, end + 1)
    for begin in sorted(starts):
        yield data[begin : data.find(b"\n", begin)]
