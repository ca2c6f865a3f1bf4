"""Tool output for display, shared by every store.

Tool output is kept for display only up to :data:`OUTPUT_CAP_CHARS` (the last part, which
holds exit status and errors); the block is then marked ``truncated`` and the full text stays
in the agent's own file. Tool *inputs*, checklist and plan arguments and image payloads are
never shortened.
"""

from __future__ import annotations

import json

OUTPUT_CAP_CHARS = 64 * 1024


def cap_output(text: str) -> tuple[str, bool]:
    """``(shown, truncated)``: the last :data:`OUTPUT_CAP_CHARS` characters of ``text``."""
    if len(text) <= OUTPUT_CAP_CHARS:
        return text, False
    return text[-OUTPUT_CAP_CHARS:], True


def output_text(value: object) -> str | None:
    """A tool result as display text: strings as they are, anything else as JSON."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
