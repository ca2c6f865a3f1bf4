"""Plans as the hub and the CLI both name them."""

from __future__ import annotations

import hashlib


def plan_digest(markdown: str) -> str:
    """The ``planDigest`` of a plan: SHA-256 of its UTF-8 text, hex. The CLI sends the digest
    of the Markdown the user confirmed; the hub creates the issue only when it is the digest
    of the saved plan, so the description is exactly what was confirmed (LR-088)."""
    return hashlib.sha256(markdown.encode("utf-8")).hexdigest()
