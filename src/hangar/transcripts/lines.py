"""Reading complete lines of a transcript file from a byte offset, read-only.

Only complete lines (ending in ``\\n``) are returned; a partial last line is left for the next
read, and :attr:`LineReader.end_offset` stops before it. Lines of any length are supported
(they are assembled from fixed-size chunks). ``.zst`` files are decompressed as a stream and
always read from the start (offsets then count decompressed bytes).

Every line is passed through :func:`~hangar.tolerant_lines.tolerant_line` before a parser
sees it: a byte that is not UTF-8 becomes U+FFFD, and so does a lone surrogate escape
(``\ud83d`` without its pair, what a cut-off emoji becomes), so a strict JSON decoder keeps
the line and its text instead of dropping it. A reader for a parser that repairs lone
surrogates itself (``parser_repairs_surrogates``, from
:attr:`~hangar.agents.base.TranscriptProjector.repairs_lone_surrogates`) only makes lines
valid UTF-8, and one for a parser that takes lines with their ending
(``keep_line_endings``, from
:attr:`~hangar.agents.base.TranscriptProjector.accepts_line_endings`) gets each line as read,
newline included, without a copy. Offsets always count the bytes as stored.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import zstandard

from hangar.regular_files import open_regular
from hangar.tolerant_lines import tolerant_line, valid_utf8

CHUNK_BYTES = 256 * 1024
"""The read buffer: a restart's tail-first open reads a few MB in a fresh process, where every
page of a larger buffer is a page fault first (1 MiB made that read ~30 % slower and a whole
file no faster)."""


def is_compressed(path: Path) -> bool:
    return path.name.endswith(".zst")


class LineReader:
    """Iterate the complete lines of ``path`` from ``offset`` (newline stripped unless
    ``keep_line_endings``, blank skipped).

    ``bytes_read`` counts raw bytes taken from the file; ``end_offset`` is the offset just past
    the last complete line seen (in decompressed bytes for ``.zst``).
    """

    def __init__(
        self,
        path: Path,
        offset: int = 0,
        *,
        parser_repairs_surrogates: bool = False,
        keep_line_endings: bool = False,
    ) -> None:
        self.path = path
        self._repair = valid_utf8 if parser_repairs_surrogates else tolerant_line
        self._cut = None if keep_line_endings else -1
        self.start_offset = 0 if is_compressed(path) else offset
        self.end_offset = self.start_offset
        self.line_start = self.start_offset
        """Offset of the line most recently yielded."""
        self.bytes_read = 0

    def _stream(self, raw: BinaryIO) -> BinaryIO:
        if is_compressed(self.path):
            reader = zstandard.ZstdDecompressor().stream_reader(raw, closefd=False)
            return io.BufferedReader(reader, CHUNK_BYTES)
        raw.seek(self.start_offset)
        return raw

    def __iter__(self) -> Iterator[bytes]:
        with open_regular(self.path, buffering=CHUNK_BYTES) as raw:
            stream = self._stream(raw)
            compressed = stream is not raw
            end = self.end_offset
            repair, cut = self._repair, self._cut
            try:
                for line in stream:
                    if line[-1:] != b"\n":
                        break  # a partial last line: wait for its newline
                    start = end
                    end += len(line)
                    if line[:1] == b"{" or line.strip():
                        self.line_start = start
                        yield repair(line[:cut])  # [:None] is the line itself
            finally:
                self.end_offset = end
            if compressed:
                self.bytes_read = raw.tell()
            else:
                self.bytes_read = raw.tell() - self.start_offset
