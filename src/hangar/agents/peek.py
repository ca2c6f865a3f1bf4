"""Cheap reads for discovery: the first bytes, first lines and last lines of a file,
read-only, and the stat marks that tell a change.

Both line reads read a bounded number of bytes (``.zst`` files are decompressed as a stream
for the head; their tail is not read). Incomplete lines at the cut are dropped. Each line
passes :func:`~hangar.tolerant_lines.tolerant_line`, as in the transcript engine.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import zstandard

from hangar.agents.json_fields import JsonObject
from hangar.agents.json_records import SkipCounter, decode_object
from hangar.regular_files import open_regular
from hangar.tolerant_lines import tolerant_line

HEAD_BYTES = 128 * 1024
TAIL_BYTES = 64 * 1024


def head_lines(path: Path, max_bytes: int = HEAD_BYTES) -> list[bytes]:
    """Complete lines within the first ``max_bytes`` (the first line is always tried whole
    up to 4 × ``max_bytes``, since a first ``session_meta`` line can be long)."""
    with open_regular(path) as raw:
        if path.name.endswith(".zst"):
            data = zstandard.ZstdDecompressor().stream_reader(raw).read(max_bytes)
        else:
            data = raw.read(max_bytes)
            if b"\n" not in data and len(data) == max_bytes:
                data += raw.read(3 * max_bytes)
    lines = data.split(b"\n")
    return [tolerant_line(line) for line in lines[:-1] if line.strip()]


def head_bytes(path: Path, max_bytes: int) -> bytes | None:
    """The first ``max_bytes`` of a file as stored, or ``None`` when it cannot be read."""
    try:
        with open_regular(path) as handle:
            return handle.read(max_bytes)
    except OSError:
        return None


def tail_lines(path: Path, max_bytes: int = TAIL_BYTES) -> list[bytes]:
    """Complete lines within the last ``max_bytes`` (empty for ``.zst``)."""
    if path.name.endswith(".zst"):
        return []
    with open_regular(path) as raw:
        size = os.fstat(raw.fileno()).st_size
        start = max(0, size - max_bytes)
        raw.seek(start)
        data = raw.read(max_bytes)
    lines = data.split(b"\n")
    if start > 0:
        lines = lines[1:]
    return [tolerant_line(line) for line in lines if line.strip()]


def stat_marks(paths: Iterable[Path]) -> tuple[object, ...]:
    """``(size, mtime_ns)`` of each path, ``None`` for one that cannot be stat'ed: a
    :meth:`~hangar.agents.base.AgentStore.change_marker` from stat calls only."""
    marks: list[object] = []
    for path in paths:
        try:
            stat = path.stat()
            marks.append((stat.st_size, stat.st_mtime_ns))
        except OSError:
            marks.append(None)
    return tuple(marks)


def head_tail_records(
    path: Path, head_bytes: int = 16384, tail_bytes: int = 16384
) -> tuple[list[JsonObject], list[JsonObject]]:
    """JSON objects of the complete lines in a file's head and tail (discovery reads)."""
    skipped = SkipCounter()
    try:
        head = head_lines(path, head_bytes)
        tail = tail_lines(path, tail_bytes)
    except OSError:
        return [], []
    decode = (
        [decode_object(line, skipped) for line in head],
        [decode_object(line, skipped) for line in tail],
    )
    return [r for r in decode[0] if r], [r for r in decode[1] if r]
