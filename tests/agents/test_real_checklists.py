"""OpenCode 1.18.33 and Continue cn 1.5.47 sessions written by the real CLIs (offline,
in the loopback-only sandbox, against the scripted fake model), read back by hangar."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hangar.agents.base import AgentStore, LoadedSession
from hangar.agents.continue_cli import ContinueStore
from hangar.agents.opencode import OpenCodeStore
from hangar.agents.registry import agent_homes
from hangar.model import ChecklistBlock, Message, ToolBlock
from hangar.testing.agent_runs import AgentRun
from hangar.testing.conformance import assert_store_conforms

pytestmark = pytest.mark.real_agents

RunAgent = Callable[..., AgentRun]
STORES: dict[str, type[AgentStore]] = {"opencode": OpenCodeStore, "cn": ContinueStore}


def _read(run: AgentRun) -> tuple[AgentStore, LoadedSession]:
    runtime = "continue" if run.cli == "cn" else run.cli
    store = STORES[run.cli](agent_homes({"HOME": str(run.home)})[runtime])
    sources = [s for s in store.discover() if s.session_id == run.session_id]
    assert len(sources) == 1, f"{run.cli} session {run.session_id} discovered once"
    return store, store.load(sources[0])


def _lists(message: Message) -> list[list[tuple[str, bool]]]:
    """Each checklist block as (content, completed) pairs: cn's Markdown has no
    in-progress state, so both CLIs are compared on what both can express."""
    return [
        [(i.content, i.status == "completed") for i in b.items]
        for b in message.blocks or []
        if isinstance(b, ChecklistBlock)
    ]


@pytest.mark.parametrize("cli", ["opencode", "cn"])
def test_create_modify_reorder_delete_duplicate(cli: str, run_agent: RunAgent) -> None:
    """CL-001, CL-002, CL-003, CL-005, CL-062: each update is a whole list on the
    assistant message of its request, in order; the tool activity stays visible (CL-067)."""
    run = run_agent(cli, "checklist-edits", "Edit the checklist")
    assert run.returncode == 0, run.stderr
    _, loaded = _read(run)
    assert [m.role for m in loaded.messages] == ["user", "assistant"]
    reply = loaded.messages[1]
    assert reply.content == "Checklist edited."
    assert _lists(reply) == [
        [("Alpha", False), ("Beta", False), ("Gamma", False)],
        [("Alpha", True), ("Beta", False), ("Gamma", False)],
        [("Gamma", False), ("Alpha", True), ("Beta", False)],
        [("Gamma", False), ("Beta", True)],
        [("Same text", False), ("Same text", True)],
    ]
    tools = [b for b in reply.blocks or [] if isinstance(b, ToolBlock)]
    assert len(tools) == 5 and all(t.status == "done" for t in tools)
    assert loaded.summary.checklist is not None
    assert loaded.summary.checklist.source == (
        "opencode.todowrite" if cli == "opencode" else "continue.Checklist"
    )
    if cli == "opencode":
        statuses = [i.status for i in loaded.summary.checklist.items]
        assert statuses == ["pending", "completed"]
        assert [b.items[1].status for b in reply.blocks or [] if isinstance(b, ChecklistBlock)][
            1
        ] == "in_progress"


@pytest.mark.parametrize("cli", ["opencode", "cn"])
def test_a_valid_clear(cli: str, run_agent: RunAgent) -> None:
    """CL-023, CL-030, CL-070: an update with no items clears and stays cleared."""
    run = run_agent(cli, "checklist-clear", "Clear the checklist")
    assert run.returncode == 0, run.stderr
    _, loaded = _read(run)
    assert _lists(loaded.messages[1]) == [[("Temporary step", False)], []]
    assert loaded.summary.checklist is not None and loaded.summary.checklist.cleared


@pytest.mark.parametrize("cli", ["opencode", "cn"])
def test_more_than_4000_characters(cli: str, run_agent: RunAgent) -> None:
    """CL-008, CL-009, CL-013, CL-019: the raw arguments arrive whole."""
    run = run_agent(cli, "checklist-long", "Write a long checklist")
    assert run.returncode == 0, run.stderr
    _, loaded = _read(run)
    checklist = loaded.summary.checklist
    assert checklist is not None and len(checklist.items) == 30
    assert sum(len(i.content) for i in checklist.items) > 4_000
    assert checklist.items[-1].content.startswith("Step 29: ")


@pytest.mark.parametrize("cli", ["opencode", "cn"])
def test_consecutive_turns(cli: str, run_agent: RunAgent, tmp_path: Path) -> None:
    """CL-064, CL-065, CL-068: turn one keeps its list, turn two (no plan) gets none, turn
    three its own; a fresh read restores the same history. The sessions also pass the
    conformance suite."""
    first = run_agent(cli, "plan", "Plan the work")
    # A resumed session runs where it started (OpenCode ties a session to its directory).
    second = run_agent(cli, "hello", "Say hello", resume=True, cwd=first.cwd_inside)
    third = run_agent(cli, "checklist-clear", "Clear it", resume=True, cwd=first.cwd_inside)
    for run in (first, second, third):
        assert run.returncode == 0, run.stderr
    assert first.session_id == second.session_id == third.session_id
    store, loaded = _read(third)
    replies = [m for m in loaded.messages if m.role == "assistant"]
    assert len(replies) == 3
    assert _lists(replies[0]) == [
        [("Reproduce the bug", True), ("Write the fix", False), ("Add a regression test", False)]
    ]
    assert _lists(replies[1]) == []
    assert _lists(replies[2]) == [[("Temporary step", False)], []]
    assert _read(third)[1].messages == loaded.messages
    assert_store_conforms(type(store), store.home, tmp_path / "conformance")


def test_opencode_event_log_rebuilds_the_same_transcript(
    run_agent: RunAgent, tmp_path: Path
) -> None:
    """1.18's ``event`` table alone (no ``message``/``part`` rows) gives the same messages:
    a copy of the real database (made with SQLite's backup from a read-only connection)
    loses its projected rows and is read again."""
    import sqlite3

    from hangar.agents.homes import AgentHome

    run = run_agent("opencode", "checklist-edits", "Edit the checklist")
    assert run.returncode == 0, run.stderr
    store, original = _read(run)
    copy_root = tmp_path / "events-only"
    copy_root.mkdir()
    source = sqlite3.connect(f"file:{store.home.root / 'opencode.db'}?mode=ro", uri=True)
    target = sqlite3.connect(copy_root / "opencode.db")
    source.backup(target)
    source.close()
    target.execute("DELETE FROM part")
    target.execute("DELETE FROM message")
    target.commit()
    target.close()
    events_only = OpenCodeStore(AgentHome("opencode", copy_root, None))
    [copied] = [s for s in events_only.discover() if s.session_id == run.session_id]
    assert events_only.load(copied).messages == original.messages
