"""Usage facets of agents that record per-message counts which their store already reads.

For these agents the count comes from the normalized transcript (each assistant message's
``usage``), read through the agent's own store; what differs per agent is only what its
numbers mean, given as :class:`UsageRules`:

* OpenAI-style (Continue, Copilot): ``input`` includes cache reads, ``output`` includes
  reasoning;
* Gemini-style (Gemini CLI, Qwen Code): ``input`` (``promptTokenCount``) includes cache reads,
  ``output`` (``candidatesTokenCount``) excludes thoughts, which are counted apart;
* OpenCode: ``input`` excludes cache reads and writes, ``output`` excludes reasoning.

Normalized as :class:`~hangar.model.TokenUse` (reasoning is a part of ``output``, never added
twice). A call is keyed by runtime, session and message id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from hangar.agents.base import AgentStore, SessionSource
from hangar.agents.usage_scan import read_regular
from hangar.model import Message, TokenUse, Usage, UsageEvent

Scanner = Callable[[AgentStore, SessionSource], Iterator[UsageEvent]]


@dataclass(frozen=True)
class UsageRules:
    input_includes_cache_read: bool
    output_includes_reasoning: bool

    def tokens(self, usage: Usage) -> TokenUse:
        cache_read = usage.cache_read_tokens
        given_input = usage.input_tokens
        fresh = max(0, given_input - cache_read) if self.input_includes_cache_read else given_input
        reasoning = usage.reasoning_tokens
        output = (
            usage.output_tokens
            if self.output_includes_reasoning
            else usage.output_tokens + reasoning
        )
        return TokenUse(
            input=fresh,
            cache_read=cache_read,
            cache_write=usage.cache_write_tokens,
            output=output,
            reasoning=min(reasoning, output),
        )


OPENAI_STYLE = UsageRules(input_includes_cache_read=True, output_includes_reasoning=True)
GEMINI_STYLE = UsageRules(input_includes_cache_read=True, output_includes_reasoning=False)
OPENCODE_STYLE = UsageRules(input_includes_cache_read=False, output_includes_reasoning=False)


def transcript_messages(store: AgentStore, source: SessionSource) -> list[Message]:
    """The session's messages read in full through its store (regular files only)."""
    if not store.reads_incrementally(source):
        return store.load(source).messages
    data = read_regular(source.path)
    if data is None:
        return []
    projector = store.new_projector(source)
    complete = data[: data.rfind(b"\n") + 1]
    for line in complete.split(b"\n"):
        if line.strip():
            projector.feed(line)
    return projector.take().messages


def transcript_scanner(rules: UsageRules) -> Scanner:
    def scan(store: AgentStore, source: SessionSource) -> Iterator[UsageEvent]:
        for message in transcript_messages(store, source):
            if message.role != "assistant" or message.usage is None:
                continue
            tokens = rules.tokens(message.usage)
            if tokens.total == 0:
                continue
            key = f"{source.runtime}:{source.session_id}:{message.id}"
            yield UsageEvent(key, message.completed_at or message.created_at, message.model, tokens)

    return scan


scan_openai_style = transcript_scanner(OPENAI_STYLE)
scan_gemini_style = transcript_scanner(GEMINI_STYLE)
scan_opencode_style = transcript_scanner(OPENCODE_STYLE)
