"""Run messages: the local-run execution log entries a provider reports (DESIGN §4).

A message is ``{type, tool?, content?, input?, output?, source, sourceKey}`` on the wire; the
hub adds ``seq`` and ``createdAt``. ``sourceKey`` is derived from the agent's real event ids
(never time, random numbers or counters), so the same event always yields the same key and the
hub can store it once per (run, source, sourceKey).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

MessageType = Literal["text", "thinking", "tool_use", "tool_result", "error", "user_input", "final"]
MESSAGE_TYPES: frozenset[str] = frozenset(get_args(MessageType))

#: Sources the built-in providers use.
SOURCE_CODEX = "codex-app-server"
SOURCE_CLAUDE = "claude-jsonl"


@dataclass(frozen=True)
class RunMessage:
    """One execution-log entry as a provider reports it."""

    type: MessageType
    source: str
    source_key: str
    content: str = ""
    tool: str | None = None
    input: dict[str, Any] = field(default_factory=dict)
    output: str | None = None

    def is_empty(self) -> bool:
        """Empty messages are dropped, except tool messages (a tool may print nothing)."""
        if self.type in ("tool_use", "tool_result"):
            return False
        return not self.content.strip() and not self.input

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type,
            "source": self.source,
            "sourceKey": self.source_key,
            "content": self.content,
        }
        if self.tool is not None:
            out["tool"] = self.tool
        if self.input:
            out["input"] = self.input
        if self.output is not None:
            out["output"] = self.output
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunMessage:
        kind = data.get("type")
        if kind not in MESSAGE_TYPES:
            raise ValueError(f"unknown run message type: {kind!r}")
        source_key = data.get("sourceKey")
        if not isinstance(source_key, str) or not source_key:
            raise ValueError("sourceKey is required")
        raw_input = data.get("input") or {}
        if not isinstance(raw_input, dict):
            raise ValueError("input must be an object")
        output = data.get("output")
        tool = data.get("tool")
        return cls(
            type=kind,
            source=str(data.get("source") or "local-run"),
            source_key=source_key,
            content=str(data.get("content") or ""),
            tool=str(tool) if tool is not None else None,
            input=raw_input,
            output=str(output) if output is not None else None,
        )


@dataclass(frozen=True)
class UsageEntry:
    """Token usage of one provider+model within a run (cumulative when sent)."""

    provider: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def plus(self, other: UsageEntry) -> UsageEntry:
        return UsageEntry(
            self.provider,
            self.model,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model": self.model,
            "inputTokens": self.input_tokens,
            "outputTokens": self.output_tokens,
            "cacheReadTokens": self.cache_read_tokens,
            "cacheWriteTokens": self.cache_write_tokens,
        }
