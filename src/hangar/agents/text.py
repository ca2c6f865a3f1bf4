"""Plain text out of agent content, and list titles: the one text extractor.

Agents store text as a string, a list of parts (``{type: text, text}``, ``{text}``, bare
strings, images), or an object wrapping either (``{content}``, ``{output}``, ``{text}``,
``{stdout}``). :func:`content_text` reads all of them the same way for every agent.
"""

from __future__ import annotations

import json
from typing import Any


def content_text(value: Any) -> str:
    """The text of ``value``: a string as it is; a list's text parts joined by newlines
    (an image part reads ``[image]``); an object's ``content``/``output``/``text``/``stdout``
    (the first present); any other object as JSON; ``None`` as ``""``."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts: list[str] = []
        for part in value:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict):
                text = part.get("text")
                if isinstance(text, str):
                    parts.append(text)
                elif part.get("type") in {"image", "input_image"}:
                    parts.append("[image]")
        return "\n".join(parts)
    if isinstance(value, dict):
        for key in ("content", "output", "text", "stdout"):
            if key in value:
                return content_text(value[key])
    return json.dumps(value, ensure_ascii=False)


def title_from(text: str | None, limit: int = 80) -> str | None:
    """A list title from a request: its first non-blank line, at most ``limit`` chars."""
    for line in (text or "").splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return None
