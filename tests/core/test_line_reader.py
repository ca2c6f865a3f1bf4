"""The line reader every transcript parse goes through: complete lines only, from any offset,
with the offsets the turn tables are built from."""

from __future__ import annotations

from pathlib import Path

import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from hangar.transcripts.lines import LineReader

_LINE = st.one_of(
    st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"x").replace(b"\x8a", b"x")),
    st.sampled_from([b"", b"   ", b"\t\r", b'{"a":1}']),
)


def expected(data: bytes, offset: int) -> tuple[list[tuple[int, bytes]], int]:
    """(offset, line) of each non-blank complete line after ``offset``, and the end offset."""
    out, position = [], offset
    *complete, _partial = data[offset:].split(b"\n")
    for line in complete:
        if line[:1] == b"{" or line.strip():
            out.append((position, line))
        position += len(line) + 1
    return out, position


def read_all(reader: LineReader) -> list[tuple[int, bytes]]:
    return [(reader.line_start, line) for line in reader]


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(_LINE, max_size=30),
    partial=st.binary(max_size=20).map(lambda b: b.replace(b"\n", b"")),
    start=st.integers(0, 30),
)
def test_lines_offsets_and_end_match_a_plain_split(
    tmp_path_factory: pytest.TempPathFactory, lines: list[bytes], partial: bytes, start: int
) -> None:
    """A partial last line is left for the next read and ``end_offset`` stops before it."""
    lines = [bytes(b % 128 for b in line) for line in lines]  # ASCII: no repair to expect
    data = b"".join(line + b"\n" for line in lines) + partial
    boundaries = [0]
    for line in lines:
        boundaries.append(boundaries[-1] + len(line) + 1)
    offset = boundaries[min(start, len(lines))]
    path = tmp_path_factory.mktemp("lines") / "s.jsonl"
    path.write_bytes(data)
    reader = LineReader(path, offset, parser_repairs_surrogates=True)
    want, end = expected(data, offset)
    assert read_all(reader) == want
    assert reader.end_offset == end
    assert reader.bytes_read == len(data) - offset
    kept = LineReader(path, offset, parser_repairs_surrogates=True, keep_line_endings=True)
    assert read_all(kept) == [(at, line + b"\n") for at, line in want]
    assert kept.end_offset == end


def test_a_line_of_several_megabytes_comes_whole(tmp_path: Path) -> None:
    big = b'{"text":"' + b"y" * (5 * 2**20) + b'"}'
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a":1}\n' + big + b"\n" + b'{"b":2}\n')
    assert list(LineReader(path)) == [b'{"a":1}', big, b'{"b":2}']


def test_bytes_that_are_not_utf8_become_replacement_characters(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"t":"a\xffb"}\n')
    assert list(LineReader(path)) == ['{"t":"a\ufffdb"}'.encode()]


def test_a_compressed_file_is_read_from_its_start_in_decompressed_offsets(
    tmp_path: Path,
) -> None:
    data = b'{"a":1}\n\n{"b":2}\n{"c"'
    path = tmp_path / "s.jsonl.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(data))
    reader = LineReader(path, offset=5)
    assert read_all(reader) == [(0, b'{"a":1}'), (9, b'{"b":2}')]
    assert reader.end_offset == 17
    assert reader.bytes_read == path.stat().st_size
