"""One model reply, independent of the wire protocol that carries it.

The fake server turns a scenario turn into a :class:`Reply`; ``wire_openai`` and
``wire_anthropic`` encode it as the SSE events of each API. An encoded stream is a list of
:data:`SseEvent` pairs ``(event name or None, data)``; data ``"[DONE]"`` is sent verbatim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

MODEL = "fake-model"
SseEvent = tuple[str | None, "dict[str, Any] | str"]


@dataclass(frozen=True)
class ToolUse:
    call_id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """What the model says: optional reasoning, optional text, optional one tool call."""

    reply_id: str
    text: str | None = None
    reasoning: str | None = None
    tool: ToolUse | None = None
    usage: dict[str, int] = field(default_factory=lambda: {"input": 11, "output": 7})


def deltas(text: str, words_per_delta: int = 2) -> list[str]:
    """Split ``text`` into small chunks (a few words each, whitespace kept) to stream."""
    words = re.findall(r"\s*\S+", text) or [text]
    chunks = [
        "".join(words[i : i + words_per_delta]) for i in range(0, len(words), words_per_delta)
    ]
    trailing = text[len("".join(words)) :]
    if trailing:
        chunks[-1] += trailing
    return chunks
