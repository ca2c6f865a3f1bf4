"""Token counts of model calls, normalized across agents (no I/O).

Agents record usage differently (OpenAI counts cached input inside ``input_tokens`` and
reasoning inside ``output_tokens``; Anthropic counts cache reads and writes apart from input;
OpenCode and Gemini count reasoning apart from output). A :class:`TokenUse` always means:

* ``input``      — input tokens read at the full price (cache reads and writes excluded);
* ``cache_read`` — input tokens served from a prompt cache;
* ``cache_write``— input tokens written to a prompt cache;
* ``output``     — every generated token, reasoning included;
* ``reasoning``  — the part of ``output`` that was reasoning (never added on top).

A :class:`UsageEvent` is one model call as an agent recorded it, with the key that identifies
that call everywhere it may be recorded (a forked or resumed session can replay its parent's
records; counting each key once counts each call once).
"""

from __future__ import annotations

import msgspec


class TokenUse(msgspec.Struct, frozen=True, rename="camel", omit_defaults=True):
    input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    reasoning: int = 0

    @property
    def total(self) -> int:
        return self.input + self.cache_read + self.cache_write + self.output

    def plus(self, other: TokenUse) -> TokenUse:
        return TokenUse(
            self.input + other.input,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
            self.output + other.output,
            self.reasoning + other.reasoning,
        )

    def widest(self, other: TokenUse) -> TokenUse:
        """Field-wise maximum: several records of one call that grow as it streams."""
        return TokenUse(
            max(self.input, other.input),
            max(self.cache_read, other.cache_read),
            max(self.cache_write, other.cache_write),
            max(self.output, other.output),
            max(self.reasoning, other.reasoning),
        )


class UsageEvent(msgspec.Struct, frozen=True):
    key: str
    """Identifies the model call across files (``claude:<message id>``, …)."""
    at: str | None
    """When it happened (ISO 8601, as recorded)."""
    model: str | None
    tokens: TokenUse
