"""The one digest the transcript engine keeps (file heads, stored turn tables): BLAKE2b-128.

Taken from CPython's own ``_blake2`` module, which is what ``hashlib.blake2b`` is: importing
``hashlib`` loads OpenSSL first, a few milliseconds of every command's start that reads a
transcript (``hangar tasks show``) for a hash it never uses.
"""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # an interpreter built without it: the same function through hashlib
    from hashlib import blake2b


def digest(data: bytes) -> str:
    """A 32-character hex digest of ``data``."""
    return blake2b(data, digest_size=16).hexdigest()
