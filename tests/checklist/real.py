"""Reading back sessions the real CLIs wrote in the sandbox, for the checklist tests."""

from __future__ import annotations

from collections.abc import Callable

from hangar.agents.base import SessionSummary
from hangar.agents.registry import agent_homes, store_classes
from hangar.model import ChecklistBlock, Message, ToolBlock
from hangar.testing.agent_runs import AgentRun
from hangar.transcripts.engine import parse_all

RunAgent = Callable[..., AgentRun]
RUNTIME = {"codex": "codex", "claude": "claude", "opencode": "opencode", "cn": "continue"}
Items = list[tuple[str, str]]


def read(run: AgentRun) -> tuple[list[Message], SessionSummary]:
    """The session ``run`` wrote, parsed by hangar's own store for that CLI."""
    runtime = RUNTIME[run.cli]
    store = store_classes()[runtime](agent_homes({"HOME": str(run.home)})[runtime])
    sources = [s for s in store.discover() if s.session_id == run.session_id]
    assert len(sources) == 1, f"{run.cli} session {run.session_id} found once"
    return parse_all(store, sources[0])


def lists(message: Message) -> list[Items]:
    """Every checklist block of one message as ``(content, status)`` pairs, in order."""
    return [
        [(i.content, i.status) for i in block.items]
        for block in message.blocks or []
        if isinstance(block, ChecklistBlock)
    ]


def tools(message: Message, *names: str) -> list[ToolBlock]:
    return [b for b in message.blocks or [] if isinstance(b, ToolBlock) and b.name in names]


def replies(messages: list[Message]) -> list[Message]:
    return [m for m in messages if m.role == "assistant"]


def items(summary: SessionSummary) -> Items | None:
    if summary.checklist is None:
        return None
    return [(i.content, i.status) for i in summary.checklist.items]
