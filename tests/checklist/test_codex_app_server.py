"""Codex app-server ``turn/plan/updated``: the real ``codex app-server`` 0.171.0 (sandbox,
fake model) notifies every ``update_plan`` change; mapped and applied by the rules, each is
one update owned by the notification's own turn, matching what the rollout records."""

from __future__ import annotations

import time
from typing import Any

import pytest

from hangar.agents.checklist_events import codex_plan_updated
from hangar.agents.checklist_rules import ChecklistLedger
from hangar.agents.codex import CodexStore
from hangar.agents.codex.app_server import CodexAppServer
from hangar.agents.registry import agent_homes
from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import builtin_scenario
from hangar.transcripts.engine import parse_all

from .real import lists

pytestmark = pytest.mark.real_agents
TURN_TIMEOUT = 60.0


def _turn(server: CodexAppServer, thread_id: str, text: str) -> str:
    started = server.request(
        "turn/start",
        {"threadId": thread_id, "input": [{"type": "text", "text": text, "text_elements": []}]},
    )
    turn_id = str(started["turn"]["id"])
    deadline = time.monotonic() + TURN_TIMEOUT
    while not any(
        n.get("method") == "turn/completed" and n["params"]["turn"]["id"] == turn_id
        for n in server.notifications
    ):
        assert time.monotonic() < deadline, "the turn completed"
        # Notifications are collected while a request waits for its answer.
        server.request("thread/loaded/list", {})
        time.sleep(0.1)
    return turn_id


def _plans(notifications: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    ledger = ChecklistLedger()
    updates = [
        u
        for n in notifications
        if n.get("method") == "turn/plan/updated"
        and (u := codex_plan_updated(n.get("params"))) is not None
    ]
    return [
        (str(turn), [f"{i.content}:{i.status}" for i in block.items])
        for turn, block in ledger.apply(updates)
    ]


def test_turn_plan_updated_gives_each_turn_its_lists(agent_sandbox: AgentSandbox) -> None:
    """CL-027, CL-031, CL-036, CL-064: each ``turn/plan/updated`` is owned by its
    ``turnId``; a second turn's list never lands on the first; the rollout written by the
    same server gives the same lists per turn."""
    cwd = agent_sandbox.workspace("projects/app", builtin_scenario("hello").workspace)
    process = agent_sandbox.spawn("codex", ["app-server"], cwd=cwd)
    server = CodexAppServer([])
    try:
        server.attach(process, timeout=60)
        thread = server.request("thread/start", {"cwd": str(cwd)})["thread"]
        agent_sandbox.sandbox.load(builtin_scenario("checklist-edits"))
        first = _turn(server, thread["id"], "Edit the checklist")
        agent_sandbox.sandbox.load(builtin_scenario("checklist-second-turn"))
        second = _turn(server, thread["id"], "Plan the next work")
    finally:
        server.close()
    assert _plans(server.notifications) == [
        (first, ["Alpha:pending", "Beta:pending", "Gamma:pending"]),
        (first, ["Alpha:completed", "Beta:in_progress", "Gamma:pending"]),
        (first, ["Gamma:pending", "Alpha:completed", "Beta:in_progress"]),
        (first, ["Gamma:pending", "Beta:completed"]),
        (first, ["Same text:pending", "Same text:completed"]),
        (second, ["Next step:pending"]),
    ]
    home = agent_sandbox.host(agent_sandbox.homes.home)
    store = CodexStore(agent_homes({"HOME": str(home)})["codex"])
    [source] = [s for s in store.discover() if s.session_id == thread["id"]]
    messages, _ = parse_all(store, source)
    replies = [m for m in messages if m.role == "assistant"]
    assert [m.turn_id for m in replies] == [first, second]
    assert [len(lists(m)) for m in replies] == [5, 1]
