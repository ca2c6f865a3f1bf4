"""Where turn tables outlive the process: the store interface and the table encoding.

The engine receives a :class:`TableStore` (the executor passes one over ``executor.db``)
and never imports its implementation. A store keeps opaque bytes per key; what they mean
is decided here. A stored table is a header line (format, hangar version, digest of the
rest) and the table as MessagePack (a first open after a restart decodes it straight into
typed structs: a fraction of what JSON into plain values and checks in Python cost): a body
that does not decode, was written by another format or hangar version, or does not match its
digest is ignored (the engine then parses the file in full and stores a new table). Whether
a table still fits the file is the engine's check (signature, boundary checksums), made
every time it is used.
"""

from __future__ import annotations

import threading
from typing import Protocol, TypeVar

import msgspec

from hangar import __version__
from hangar.transcripts.digest import digest

TABLE_FORMAT = 2
"""Bump when a projector's turns or message counts change meaning, or the encoding changes:
old tables are ignored. (1: JSON; 2: MessagePack.)"""


T = TypeVar("T")


class TableStoreError(Exception):
    """The store cannot be read or written right now (the engine keeps going without it)."""


class TableStore(Protocol):
    """Bytes by key; every method may raise :class:`TableStoreError`."""

    def load_table(self, key: str) -> bytes | None:
        """The body saved for ``key``, or ``None``."""

    def save_table(self, key: str, body: bytes) -> None:
        """Replace the body saved for ``key``."""

    def delete_table(self, key: str) -> None:
        """Forget ``key`` (no error when nothing is saved)."""


class MemoryTableStore:
    """A :class:`TableStore` in a dict (one process; for tests and tools)."""

    def __init__(self) -> None:
        self.bodies: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def load_table(self, key: str) -> bytes | None:
        with self._lock:
            return self.bodies.get(key)

    def save_table(self, key: str, body: bytes) -> None:
        with self._lock:
            self.bodies[key] = body

    def delete_table(self, key: str) -> None:
        with self._lock:
            self.bodies.pop(key, None)


class _Header(msgspec.Struct, frozen=True, array_like=True):
    format: int
    version: str
    digest: str


_HEADER = msgspec.json.Decoder(_Header)


def encode_body(value: object) -> bytes:
    """The stored form of a table (any ``msgspec``-encodable value)."""
    payload = msgspec.msgpack.encode(value)
    header = msgspec.json.encode(_Header(TABLE_FORMAT, __version__, digest(payload)))
    return header + b"\n" + payload


def decode_body(body: bytes, decoder: msgspec.msgpack.Decoder[T]) -> T | None:
    """The table in ``body`` decoded by ``decoder``, or ``None`` when it is not one this
    version wrote intact (or does not have the decoder's types)."""
    head, newline, payload = bytes(body).partition(b"\n")
    if not newline:
        return None
    try:
        header = _HEADER.decode(head)
        if (header.format, header.version) != (TABLE_FORMAT, __version__):
            return None
        if header.digest != digest(payload):
            return None
        return decoder.decode(payload)
    except msgspec.DecodeError:
        return None
