"""The checklist rules on real projections: lines of real Codex and Claude Code sessions (the
public fixtures, read in place) fed to hangar's own projectors and transcript engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hangar.agents.base import SessionSource
from hangar.agents.checklist_rules import current_checklist
from hangar.agents.claude.projector import ClaudeProjector
from hangar.agents.codex.projector import CodexProjector
from hangar.agents.homes import AgentHome
from hangar.agents.registry import store_classes
from hangar.model import ChecklistBlock, Message
from hangar.transcripts.engine import TranscriptEngine, parse_all

ROLLOUT = (
    "codex/codemie-code/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
)
CLAUDE = "claude/codemie-code/session-196820da.jsonl"


def _lines(path: Path) -> list[bytes]:
    return [line for line in path.read_bytes().splitlines() if line.strip()]


def _index(lines: list[bytes], predicate: Any) -> list[int]:
    return [n for n, line in enumerate(lines) if predicate(json.loads(line))]


def _payload(kind: str, name: str | None = None) -> Any:
    def match(record: dict[str, Any]) -> bool:
        payload = record.get("payload") or {}
        return payload.get("type") == kind and (name is None or payload.get("name") == name)

    return match


def _codex(lines: list[bytes]) -> tuple[list[Message], CodexProjector]:
    projector = CodexProjector("fixture")
    for line in lines:
        projector.feed(line)
    return projector.take().messages, projector


def _blocks(message: Message) -> list[ChecklistBlock]:
    return [b for b in message.blocks or [] if isinstance(b, ChecklistBlock)]


def _with(line: bytes, **payload: Any) -> bytes:
    record = json.loads(line)
    record["payload"] = {**record["payload"], **payload}
    return json.dumps(record).encode()


@pytest.fixture
def rollout(public_fixtures: Path) -> list[bytes]:
    return _lines(public_fixtures / ROLLOUT)


def test_an_aborted_turn_keeps_item_statuses(rollout: list[bytes]) -> None:
    """CL-057, CL-065: the turn is cut off right after its first plan update (a real
    ``turn_aborted`` in place of ``task_complete``); the items keep the agent's statuses."""
    first_plan = _index(rollout, _payload("function_call", "update_plan"))[0]
    complete = rollout[_index(rollout, _payload("task_complete"))[-1]]
    aborted = _with(complete, type="turn_aborted", reason="interrupted")
    messages, projector = _codex([*rollout[: first_plan + 1], aborted])
    reply = messages[-1]
    assert reply.status == "cancelled"
    [block] = _blocks(reply)
    assert [i.status for i in block.items] == ["in_progress", "pending", "pending"]
    summary = projector.summary().checklist
    assert summary is not None and summary.items == tuple(block.items)


def test_an_invalid_update_keeps_and_a_new_turn_does_not_reach_back(
    rollout: list[bytes],
) -> None:
    """CL-025, CL-064: an ``update_plan`` with an unknown status in the same turn
    commits nothing; a following turn without a plan has no current list, while the older
    turn keeps its blocks."""
    plans = _index(rollout, _payload("function_call", "update_plan"))
    bad = _with(
        rollout[plans[-1]], call_id="call_bad", arguments='{"plan":[{"step":"x","status":"bogus"}]}'
    )
    complete = _index(rollout, _payload("task_complete"))[-1]
    lines = [*rollout[:complete], bad, *rollout[complete:]]
    messages, projector = _codex(lines)
    replies = [m for m in messages if m.role == "assistant"]
    assert len(_blocks(replies[-1])) == 2
    kept = projector.summary().checklist
    assert kept is not None and kept.items == tuple(_blocks(replies[-1])[-1].items)
    started = rollout[_index(rollout, _payload("task_started"))[-1]]
    user = rollout[_index(rollout, _payload("user_message"))[-1]]
    next_turn = [_with(started, turn_id="turn-next"), _with(user, message="And now?")]
    messages, projector = _codex([*lines, *next_turn])
    assert projector.summary().checklist is None
    assert current_checklist(messages) is None
    assert len(_blocks([m for m in messages if m.role == "assistant"][-1])) == 2


def test_appended_lines_give_the_same_lists_as_a_full_read(
    rollout: list[bytes], tmp_path: Path
) -> None:
    """CL-068: a session read while it grows (the engine's append path) and
    read again from scratch (a restart) owns the same blocks and the same current list."""
    path = tmp_path / ROLLOUT.rsplit("/", 1)[1]
    plans = _index(rollout, _payload("function_call", "update_plan"))
    path.write_bytes(b"\n".join(rollout[: plans[0] + 1]) + b"\n")
    store = store_classes()["codex"](AgentHome("codex", tmp_path, None))
    source = SessionSource("codex", path.stem, path, {})
    engine = TranscriptEngine()
    early = engine.read("k", store, source)
    assert early.summary.checklist is not None
    with path.open("ab") as out:
        out.write(b"\n".join(rollout[plans[0] + 1 :]) + b"\n")
    grown = engine.read("k", store, source)
    assert engine.stats.appends == 1
    messages, summary = parse_all(store, source)
    assert grown.messages == messages
    assert grown.summary.checklist == summary.checklist == current_checklist(messages)


def test_a_todowrite_recorded_twice_commits_once(public_fixtures: Path) -> None:
    """CL-015, CL-034: Claude splits one API message over several lines and may repeat a
    block; the same ``tool_use`` id is one update, not two."""
    lines = _lines(public_fixtures / CLAUDE)

    def todo_write(record: dict[str, Any]) -> bool:
        content = (record.get("message") or {}).get("content")
        return isinstance(content, list) and any(
            b.get("type") == "tool_use" and b.get("name") == "TodoWrite" for b in content
        )

    first = _index(lines, todo_write)[0]
    once, twice = ClaudeProjector(), ClaudeProjector()
    for line in lines[: first + 1]:
        once.feed(line)
        twice.feed(line)
    twice.feed(lines[first])
    one = once.take().messages
    assert twice.take().messages == one
    assert sum(len(_blocks(m)) for m in one) == 1
