"""OpenCode 1.18.33 ``todowrite`` and Continue cn 1.5.47 ``Checklist`` checklists from the real
CLIs (sandbox, fake model): what ``tests/agents/test_real_checklists.py`` does not cover —
invalid updates, a refused cn call, 10,000+ characters, the current list across turns, and
an OpenCode child session."""

from __future__ import annotations

import pytest

from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import builtin_scenario

from .real import RunAgent, items, lists, read, replies, tools

pytestmark = pytest.mark.real_agents
# A resumed session runs in its own project (opencode 1.18.33 hangs when it is resumed from
# another directory).
SAME = "projects/plan"

CLIS = ["opencode", "cn"]
PLAN_TOOL = {"opencode": "todowrite", "cn": "Checklist"}


def _done(status: str) -> str:
    """cn's Markdown knows only done / not done."""
    return "completed" if status == "completed" else "pending"


@pytest.mark.parametrize("cli", CLIS)
def test_an_invalid_update_keeps_the_list(cli: str, run_agent: RunAgent) -> None:
    """CL-024, CL-025, CL-026: an unknown todo status (OpenCode rejects the call) or a
    Markdown line that is not an item (cn accepts the call) commits nothing; the previous
    list stays and the call stays visible as tool activity (CL-067)."""
    run = run_agent(cli, "checklist-invalid", "Keep the checklist")
    assert run.returncode == 0, run.stderr
    messages, summary = read(run)
    kept = [("Keep me", "in_progress"), ("Keep me too", "pending")]
    if cli == "cn":
        kept = [(c, _done(s)) for c, s in kept]
    assert lists(messages[1]) == [kept]
    assert items(summary) == kept
    assert len(tools(messages[1], PLAN_TOOL[cli])) == 2


@pytest.mark.parametrize("cli", CLIS)
def test_more_than_10000_characters_survive_whole(cli: str, run_agent: RunAgent) -> None:
    """CL-008, CL-009, CL-013, CL-014, CL-019: parsed from the raw tool input (OpenCode) or
    the raw argument string (cn), never from a 4,000-character display form."""
    run = run_agent(cli, "checklist-huge", "Write a huge checklist")
    assert run.returncode == 0, run.stderr
    messages, summary = read(run)
    plan = builtin_scenario("checklist-huge").turns[0].tool
    assert plan is not None
    expected = [(i.content, i.status if cli == "opencode" else _done(i.status)) for i in plan.plan]
    assert sum(len(c) for c, _ in expected) > 10_000
    assert lists(messages[1]) == [expected]
    assert items(summary) == expected
    if cli == "opencode":
        # The native snapshot agrees with what the tool input gave (CL-001, CL-010).
        rows = sorted(run.opencode_rows("todo"), key=lambda row: row["position"])
        assert [(r["content"], r["status"]) for r in rows] == expected


@pytest.mark.parametrize("cli", CLIS)
def test_the_current_list_is_the_latest_turns_own(cli: str, run_agent: RunAgent) -> None:
    """CL-011, CL-032, CL-064: after a second turn with its own list the current list is
    that one; after a third turn without one there is no current list, and each turn's list
    stays on its own message (CL-038, CL-068)."""
    first = run_agent(cli, "plan", "Plan the work")
    second = run_agent(cli, "checklist-second-turn", "Plan the next work", resume=True, cwd=SAME)
    assert first.returncode == second.returncode == 0, second.stderr
    assert items(read(second)[1]) == [("Next step", "pending")]
    third = run_agent(cli, "hello", "Say hello", resume=True, cwd=SAME)
    assert third.returncode == 0, third.stderr
    assert first.session_id == second.session_id == third.session_id
    messages, summary = read(third)
    answers = replies(messages)
    assert [len(lists(m)) for m in answers] == [1, 1, 0]
    assert lists(answers[1]) == [[("Next step", "pending")]]
    assert summary.checklist is None


def test_cn_refused_checklist_call_is_never_committed(agent_sandbox: AgentSandbox) -> None:
    """CL-015, CL-017, CL-063: a Checklist call with a valid Markdown list that cn refuses
    (its permission policy blocks it) never commits: the earlier turn's list stays as it
    was, the refused list appears nowhere, and the call stays visible as cancelled."""
    first = agent_sandbox.run_agent("cn", "plan", "Plan the work")
    assert first.returncode == 0, first.stderr
    policy = agent_sandbox.host(agent_sandbox.homes.home) / ".continue" / "permissions.yaml"
    policy.write_text("ask:\n  - Checklist\n", encoding="utf-8")
    refused = agent_sandbox.run_agent("cn", "checklist-refused", "Plan more", resume=True, cwd=SAME)
    assert refused.session_id == first.session_id
    messages, summary = read(refused)
    answers = replies(messages)
    assert len(answers) == 2
    first_list = [
        ("Reproduce the bug", "completed"),
        ("Write the fix", "pending"),
        ("Add a regression test", "pending"),
    ]
    assert lists(answers[0]) == [first_list]
    [call] = tools(answers[1], "Checklist")
    assert call.status == "cancelled" and "Refused step" in str(call.input)
    assert lists(answers[1]) == []
    assert summary.checklist is None


def test_opencode_child_session_list_stays_in_the_child(run_agent: RunAgent) -> None:
    """CL-035, CL-036, CL-064: a sub-agent started through ``task`` writes its own list in
    its own child session; it shows only in that call's children and in the child's todo
    rows, never on the parent turn."""
    run = run_agent("opencode", "checklist-subagent", "Delegate the work")
    assert run.returncode == 0, run.stderr
    sessions = run.opencode_rows("session")
    child = next(s for s in sessions if s["parent_id"] == run.session_id)
    messages, summary = read(run)
    parent = messages[1]
    assert lists(parent) == [[("Parent step", "in_progress")]]
    assert items(summary) == [("Parent step", "in_progress")]
    [task] = tools(parent, "task")
    assert task.children, "the child session is read into the task call's children"
    assert [x for m in task.children for x in lists(m)] == [[("Child step", "pending")]]
    todo = {(r["session_id"], r["content"]) for r in run.opencode_rows("todo")}
    assert todo == {(run.session_id, "Parent step"), (child["id"], "Child step")}
