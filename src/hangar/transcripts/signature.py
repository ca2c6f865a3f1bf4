"""File signatures: how the engine tells "unchanged", "appended" and "rewritten" apart.

A :class:`FileSignature` is (device, inode, size, mtime_ns, a hash of the head). The head is
the first ``min(size, HEAD_BYTES)`` bytes; ``head_len`` records how many were hashed so a
longer file can be checked against the same prefix.

:func:`compare` classifies a change:

* ``same``      — identical signature;
* ``appended``  — same file (device + inode), longer, same head: only new bytes need reading;
* ``rewritten`` — anything else (truncated, replaced, same size with a new mtime, new head).
"""

# No `from __future__ import annotations`: msgspec resolves the persisted structs' field
# types when a restart's first open makes its decoder, and string annotations cost that
# open 2.5 times as much (a tenth of a millisecond).
from pathlib import Path
from typing import Literal

import msgspec

from hangar.regular_files import open_regular
from hangar.transcripts.digest import digest

HEAD_BYTES = 4096

Change = Literal["same", "appended", "rewritten"]


class FileSignature(msgspec.Struct, frozen=True):
    device: int
    inode: int
    size: int
    mtime_ns: int
    head_len: int
    head_hash: str

    def encode(self) -> str:
        return msgspec.json.encode(self).decode()

    @classmethod
    def decode(cls, text: str | None) -> "FileSignature | None":
        if not text:
            return None
        try:
            return msgspec.json.decode(text, type=cls)
        except msgspec.DecodeError:
            return None


def _head_hash(path: Path, length: int) -> str:
    with open_regular(path) as handle:
        return digest(handle.read(length))


def sign(path: Path) -> FileSignature:
    """Stat the file and hash its head. Raises ``OSError`` (e.g. ``FileNotFoundError``)."""
    st = path.stat()
    head_len = min(st.st_size, HEAD_BYTES)
    return FileSignature(
        st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, head_len, _head_hash(path, head_len)
    )


def stat_matches(old: FileSignature, path: Path) -> bool:
    """True when ``path`` still has ``old``'s device, inode, size and mtime (no read)."""
    try:
        st = path.stat()
    except OSError:
        return False
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) == (
        old.device,
        old.inode,
        old.size,
        old.mtime_ns,
    )


def compare(old: FileSignature, new: FileSignature, path: Path) -> Change:
    """Classify how ``path`` changed from ``old`` to ``new`` (see the module docstring)."""
    if old == new:
        return "same"
    if (old.device, old.inode) != (new.device, new.inode) or new.size <= old.size:
        return "rewritten"
    if new.head_len == old.head_len:
        same_head = new.head_hash == old.head_hash
    else:
        same_head = _head_hash(path, old.head_len) == old.head_hash
    return "appended" if same_head else "rewritten"
