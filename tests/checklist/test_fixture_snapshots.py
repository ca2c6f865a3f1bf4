"""Checklists of public session fixtures with ``TodoWrite`` / ``update_plan``, as snapshots.

The fixtures are read where they are (beside the checkout) and never copied; the tests skip
when the folder is absent. Regenerate with ``HANGAR_UPDATE_SNAPSHOTS=1``. Each snapshot holds, per
assistant message, the checklist blocks it owns, plus the transcript's current checklist.
Independently of hangar's parsers, each test also counts the plan tool calls in the raw
file: every valid call becomes exactly one block on the message of its request.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import msgspec
import pytest

from hangar.agents.base import SessionSource
from hangar.agents.checklist_rules import current_checklist
from hangar.agents.checklists import from_claude_todowrite, from_codex_update_plan
from hangar.agents.homes import AgentHome
from hangar.agents.registry import store_classes
from hangar.model import ChecklistBlock
from hangar.transcripts.engine import parse_all

SNAPSHOTS = Path(__file__).resolve().parents[1] / "snapshots" / "checklist"
ROLLOUT = "codex/codemie-code/rollout-2026-05-11T{}.jsonl"
VIEWER = "claude/claude-code-viewer/sample-project/{}.jsonl"
CASES = [
    ("claude", "claude/claude-code-log/todowrite_examples.jsonl"),
    ("claude", "claude/codemie-code/session-196820da.jsonl"),
    ("claude", VIEWER.format("fe5e1c67-53e7-4862-81ae-d0e013e3270b")),
    ("claude", VIEWER.format("5c0375b4-57a5-4f26-b12d-d022ee4e51b7")),
    ("claude", VIEWER.format("1af7fc5e-8455-4414-9ccd-011d40f70b2a")),
    ("codex", ROLLOUT.format("11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799")),
]


def _name(relative: str) -> str:
    return relative.replace("/", "__").removesuffix(".jsonl") + ".json"


def _raw_plan_calls(runtime: str, path: Path) -> list[Any]:
    """The arguments of every main-chain plan tool call in the raw file, once per call id."""
    seen: set[str] = set()
    calls: list[Any] = []
    for line in path.read_text("utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if runtime == "codex":
            payload = record.get("payload") or {}
            if payload.get("type") == "function_call" and payload.get("name") == "update_plan":
                calls.append(from_codex_update_plan(payload.get("arguments")))
            continue
        if record.get("type") != "assistant" or record.get("isSidechain"):
            continue
        content = (record.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            is_todo = block.get("type") == "tool_use" and block.get("name") == "TodoWrite"
            if is_todo and block.get("id") not in seen:
                seen.add(block.get("id"))
                calls.append(from_claude_todowrite(block.get("input")))
    return [c for c in calls if c is not None]


@pytest.mark.parametrize(("runtime", "relative"), CASES, ids=[_name(c[1]) for c in CASES])
def test_fixture_checklists(public_fixtures: Path, runtime: str, relative: str) -> None:
    """CL-023, CL-029, CL-031, CL-038: each valid TodoWrite / update_plan call of a
    real or public session is one whole-list block on the assistant message of its request;
    the current list is the latest turn's own (CL-064)."""
    path = public_fixtures / relative
    store = store_classes()[runtime](AgentHome(runtime, path.parent, None))
    messages, summary = parse_all(store, SessionSource(runtime, path.stem, path, {}))
    owners: list[dict[str, Any]] = []
    blocks: list[ChecklistBlock] = []
    for message in messages:
        mine = [b for b in message.blocks or [] if isinstance(b, ChecklistBlock)]
        blocks.extend(mine)
        if mine:
            assert message.role == "assistant"
            owners.append(
                {
                    "index": message.index,
                    "turnId": message.turn_id,
                    "checklists": msgspec.to_builtins(mine),
                }
            )
    valid_calls = _raw_plan_calls(runtime, path)
    assert valid_calls, "the fixture has plan tool calls"
    assert [list(c.items) for c in valid_calls] == [b.items for b in blocks]
    assert current_checklist(messages) == summary.checklist
    snapshot = {"messages": owners, "current": msgspec.to_builtins(summary.checklist)}
    _check(_name(relative), snapshot)


def _check(name: str, data: object) -> None:
    path = SNAPSHOTS / name
    text = json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get("HANGAR_UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
        return
    if not path.exists():
        pytest.fail(f"missing snapshot {name}; run with HANGAR_UPDATE_SNAPSHOTS=1")
    assert json.loads(path.read_text("utf-8")) == json.loads(text)
