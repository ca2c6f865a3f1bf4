"""What each CLI's own store must hold after a run (read with plain json/sqlite3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hangar.testing.agent_runs import AgentRun


def only(paths: list[Path], suffix: str, exclude: str = "") -> Path:
    found = [p for p in paths if p.name.endswith(suffix) and p.name != exclude]
    assert len(found) == 1, f"expected one {suffix} store file, got {found}"
    return found[0]


def codex_items(run: AgentRun) -> list[dict[str, Any]]:
    """The rollout's ``response_item`` payloads (the model-visible conversation)."""
    rollout = only(run.store_files, ".jsonl", exclude="session_index.jsonl")
    assert rollout.parents[3] == run.agent_home / "sessions"  # sessions/YYYY/MM/DD/
    lines = run.records(rollout)
    assert lines[0]["type"] == "session_meta"
    assert lines[0]["payload"]["id"] == run.session_id
    assert lines[0]["payload"]["cwd"] == str(run.cwd_inside)
    return [line["payload"] for line in lines if line["type"] == "response_item"]


def claude_lines(run: AgentRun) -> list[dict[str, Any]]:
    transcript = only(run.store_files, ".jsonl")
    assert transcript.name == f"{run.session_id}.jsonl"
    lines = run.records(transcript)
    chat = [line for line in lines if line.get("type") in ("user", "assistant")]
    assert chat and all(line["cwd"] == str(run.cwd_inside) for line in chat)
    return chat


def claude_blocks(run: AgentRun, kind: str) -> list[dict[str, Any]]:
    return [
        block
        for line in claude_lines(run)
        if isinstance(line["message"]["content"], list)
        for block in line["message"]["content"]
        if block.get("type") == kind
    ]


def opencode_parts(run: AgentRun) -> list[dict[str, Any]]:
    sessions = run.opencode_rows("session")
    assert [s["id"] for s in sessions] == [run.session_id]
    assert sessions[0]["directory"] == str(run.cwd_inside)
    return [json.loads(row["data"]) for row in run.opencode_rows("part")]


def cn_history(run: AgentRun) -> list[dict[str, Any]]:
    session = only(run.store_files, ".json", exclude="sessions.json")
    document = run.records(session)[0]
    assert document["sessionId"] == run.session_id
    assert document["workspaceDirectory"] == str(run.cwd_inside)
    index = run.records(session.parent / "sessions.json")
    assert run.session_id in json.dumps(index)
    history: list[dict[str, Any]] = document["history"]
    return history


def cn_tool_states(run: AgentRun) -> list[dict[str, Any]]:
    return [state for item in cn_history(run) for state in item.get("toolCallStates") or []]
