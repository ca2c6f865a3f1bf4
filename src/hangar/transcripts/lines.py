"""Reading complete lines of a transcript file from a byte offset, read-only.

Only complete lines (ending in ``\\n``) are returned; a partial last line is left for the next
read, and :attr:`LineReader.end_offset` stops before it. Lines of any length are supported
(they are assembled from fixed-size chunks). ``.zst`` files are decompressed as a stream and
always read from the start (offsets then count decompressed bytes).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import zstandard

CHUNK_BYTES = 1 << 20


def is_compressed(path: Path) -> bool:
    return path.name.endswith(".zst")


class LineReader:
    """Iterate the complete lines of ``path`` from ``offset`` (newline stripped, blank skipped).

    ``bytes_read`` counts raw bytes taken from the file; ``end_offset`` is the offset just past
    the last complete line seen (in decompressed bytes for ``.zst``).
    """

    def __init__(self, path: Path, offset: int = 0) -> None:
        self.path = path
        self.start_offset = 0 if is_compressed(path) else offset
        self.end_offset = self.start_offset
        self.bytes_read = 0

    def _chunks(self, raw: BinaryIO) -> Iterator[bytes]:
        if is_compressed(self.path):
            reader = zstandard.ZstdDecompressor().stream_reader(raw, closefd=False)
            while True:
                before = raw.tell()
                chunk = reader.read(CHUNK_BYTES)
                self.bytes_read += raw.tell() - before
                if not chunk:
                    return
                yield chunk
        raw.seek(self.start_offset)
        while True:
            chunk = raw.read(CHUNK_BYTES)
            if not chunk:
                return
            self.bytes_read += len(chunk)
            yield chunk

    def __iter__(self) -> Iterator[bytes]:
        with self.path.open("rb") as raw:
            pending: list[bytes] = []
            for chunk in self._chunks(raw):
                pieces = chunk.split(b"\n")
                if pending:
                    pending.append(pieces[0])
                    pieces[0] = b"".join(pending)
                    pending.clear()
                tail = pieces.pop()
                if tail:
                    pending.append(tail)
                for line in pieces:
                    self.end_offset += len(line) + 1
                    if line and not line.isspace():
                        yield line
