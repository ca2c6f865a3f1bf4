"""Claude Code's usage facet: one event per API message, from the transcript's own lines.

Claude writes one line per content block of an API message, each carrying the message's
``usage``; while a reply streams, later lines of the same ``message.id`` have a larger
``output_tokens``. A message counts once, at its largest values (field by field). A resumed
session copies earlier messages into its new file: the ``message.id`` key counts them once.
Sub-agent transcripts (``<session>/subagents/*.jsonl``) are the session's own calls and are
counted with it. Anthropic's ``input_tokens`` excludes cache reads and writes, which are
counted apart; thinking is part of ``output_tokens``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec

from hangar.agents.base import AgentStore, SessionSource
from hangar.agents.usage_scan import lines_with, read_regular
from hangar.model import TokenUse, UsageEvent


class _Details(msgspec.Struct):
    thinking_tokens: int = 0


class _Usage(msgspec.Struct):
    input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    output_tokens: int = 0
    output_tokens_details: _Details | None = None

    def tokens(self) -> TokenUse:
        thinking = self.output_tokens_details.thinking_tokens if self.output_tokens_details else 0
        return TokenUse(
            input=self.input_tokens,
            cache_read=self.cache_read_input_tokens,
            cache_write=self.cache_creation_input_tokens,
            output=self.output_tokens,
            reasoning=min(thinking, self.output_tokens),
        )


class _Message(msgspec.Struct):
    id: str | None = None
    model: str | None = None
    usage: _Usage | None = None


class _Line(msgspec.Struct):
    type: str = ""
    timestamp: str | None = None
    requestId: str | None = None
    message: _Message | None = None


_DECODE = msgspec.json.Decoder(_Line).decode


def _files(path: Path) -> list[Path]:
    folder = path.with_name(path.name.split(".")[0]) / "subagents"
    extra = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    return [path, *extra]


def scan_usage(store: AgentStore, source: SessionSource) -> Iterator[UsageEvent]:
    calls: dict[str, UsageEvent] = {}
    for path in _files(source.path):
        data = read_regular(path)
        if data is None:
            continue
        for raw in lines_with(data, b'"usage"'):
            try:
                line = _DECODE(raw)
            except (msgspec.DecodeError, msgspec.ValidationError):
                continue
            message = line.message
            if line.type != "assistant" or message is None or message.usage is None:
                continue
            if not message.id or message.model == "<synthetic>":
                continue  # Claude's own placeholder replies cost nothing
            key = f"claude:{message.id}"
            tokens = message.usage.tokens()
            seen = calls.get(key)
            if seen is not None:
                tokens = seen.tokens.widest(tokens)
            at = seen.at if seen is not None else line.timestamp
            calls[key] = UsageEvent(key, at, message.model, tokens)
    yield from calls.values()
