"""Image content checks shared by every layer: what bytes really are, and inline previews.

No I/O here. A preview is a ``data:image/…;base64,`` URL whose bytes were decoded and sniffed
(PNG, JPEG, GIF or WebP by their magic bytes) and are at most :data:`MAX_PREVIEW_BYTES`: the
type a record or a browser claims is never trusted alone, and an oversized image is never
inlined into a transcript page (RW-222).
"""

from __future__ import annotations

import base64
import binascii
import re

MAX_PREVIEW_BYTES = 5 * 1024 * 1024
IMAGE_MAGIC: dict[str, tuple[bytes, ...]] = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}
_DATA_URL = re.compile(r"data:(?P<mime>[\w.+/-]*)(?:;[\w=-]+)*;base64,", re.I)
# base64 grows 4/3; anything longer than this cannot decode to an allowed preview.
_MAX_ENCODED = (MAX_PREVIEW_BYTES + 2) // 3 * 4 + 4


def sniff_image(head: bytes) -> str | None:
    """The image type the bytes actually are, or ``None``."""
    for mime, magics in IMAGE_MAGIC.items():
        if any(head.startswith(m) for m in magics):
            if mime == "image/webp" and head[8:12] != b"WEBP":
                continue
            return mime
    return None


def preview_url(data: bytes) -> str | None:
    """A ``data:`` URL for image bytes of at most :data:`MAX_PREVIEW_BYTES`, else ``None``."""
    if len(data) > MAX_PREVIEW_BYTES:
        return None
    mime = sniff_image(data[:16])
    if mime is None:
        return None
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def preview_from_base64(encoded: object) -> str | None:
    """A checked preview for base64 image data (a Claude image block's ``source.data``)."""
    if not isinstance(encoded, str) or len(encoded) > _MAX_ENCODED:
        return None
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return None
    return preview_url(data)


def preview_from_data_url(url: object) -> str | None:
    """A checked preview for a ``data:…;base64,`` URL (a Codex ``input_image``); any other URL
    (http, file, a path) gives ``None``: hangar never fetches or reads what a URL names."""
    if not isinstance(url, str):
        return None
    match = _DATA_URL.match(url)
    if match is None:
        return None
    return preview_from_base64(url[match.end() :])
