"""Issue 12, item 7: a JSONL line with a lone surrogate escape or a byte that is not UTF-8
keeps its text (with U+FFFD), for Claude and every other append-only (JSONL) agent."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hangar.agents.base import AgentStore, SessionSource
from hangar.agents.registry import store_classes
from hangar.model import Message
from hangar.transcripts.engine import TranscriptEngine

from .homes import FIXTURE_HOMES, claude_home, codex_home

DAMAGE = {
    "lone surrogate escape": b"\\ud83d",  # a cut-off emoji, as JSON writes it
    "invalid UTF-8 byte": b"\xff",
}
JSONL_AGENTS = sorted(runtime for runtime, cls in store_classes().items() if cls.append_only)
BUILDERS = {**FIXTURE_HOMES, "claude": claude_home, "codex": codex_home}


def read_all(store: AgentStore, source: SessionSource) -> list[Message]:
    return TranscriptEngine().read(source.session_id, store, source, refresh=True).messages


def a_word(messages: list[Message], data: bytes) -> tuple[int, str] | None:
    """A message and a distinctive word of its text that appears verbatim in the file."""
    for index, message in enumerate(messages):
        for word in sorted(set(re.findall(r"[A-Za-z]{6,}", message.content)), key=len)[::-1]:
            if data.count(word.encode()) == 1:
                return index, word
    return None


def test_every_jsonl_agent_is_covered() -> None:
    """The list below follows the registry: a new JSONL agent needs a sample here."""
    assert set(JSONL_AGENTS) <= set(BUILDERS), set(JSONL_AGENTS) - set(BUILDERS)


@pytest.mark.parametrize("damage", list(DAMAGE))
@pytest.mark.parametrize("runtime", JSONL_AGENTS)
def test_item_7_damaged_text_is_kept_with_a_replacement_character(
    runtime: str, damage: str, public_fixtures: Path, tmp_path: Path
) -> None:
    """Item 7: the damaged line is still read, its message keeps every other character
    (the line used to be dropped, and the message lost its text)."""
    store = store_classes()[runtime](BUILDERS[runtime](public_fixtures, tmp_path / runtime))
    checked = 0
    for source in store.discover():
        if not store.reads_incrementally(source) or source.parent_session_id:
            continue
        before = read_all(store, source)
        data = source.path.read_bytes()
        found = a_word(before, data)
        if found is None:
            continue
        index, word = found
        source.path.write_bytes(data.replace(word.encode(), word.encode() + DAMAGE[damage]))
        after = read_all(store, source)
        assert len(after) == len(before), (source.path, damage)
        assert word + "\ufffd" in after[index].content, (after[index].content[:200], damage)
        checked += 1
    assert checked, f"no {runtime} sample session has a distinctive word to damage"
