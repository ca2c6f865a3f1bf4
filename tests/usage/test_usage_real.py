"""Usage counted from the records the real Codex and Claude CLIs write, against the fake model
server's own bill (every request it answered carries the usage it reported).

The hand count is the server's: each answered request billed ``11`` input and ``7`` output
tokens (the fake model's default reply usage). A naive reader that sums Codex's running totals,
or every Claude line, gets more — each test checks that too, so it would catch that mistake.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hangar.agents.codex.app_server import CodexAppServer
from hangar.agents.launch import NoLauncher
from hangar.agents.registry import open_stores
from hangar.executor.service import Executor
from hangar.testing.agent_runs import AgentRun, AgentSandbox

pytestmark = pytest.mark.real_agents

PER_REQUEST = 11 + 7


def _billed(*runs: AgentRun) -> int:
    return PER_REQUEST * sum(len(run.requests) for run in runs)


def _executor(sandbox: AgentSandbox) -> Executor:
    home = sandbox.host(sandbox.homes.home)
    stores = open_stores({"HOME": str(home), "CODEX_HOME": str(home / ".codex")})
    return Executor.open(stores=stores, launcher=NoLauncher())


def test_a_forked_codex_thread_counts_its_parent_once(
    agent_sandbox: AgentSandbox, isolated_home: Path
) -> None:
    """Issue 24: the fork's running total starts at its parent's; only new calls count."""
    first = agent_sandbox.run_agent("codex", "shell-roundtrip", "run it")
    again = agent_sandbox.run_agent("codex", "hello", "say hello again", resume=True)
    assert first.returncode == again.returncode == 0
    process = agent_sandbox.spawn("codex", ["app-server"], cwd=agent_sandbox.homes.home)
    server = CodexAppServer(["codex", "app-server"])
    server.attach(process)
    try:
        fork_id = server.request("thread/fork", {"threadId": first.session_id})["thread"]["id"]
    finally:
        server.close()
    on_fork = agent_sandbox.run_agent("codex", "hello", "hello on the fork", resume=fork_id)
    assert on_fork.returncode == 0, on_fork.stderr

    executor = _executor(agent_sandbox)
    try:
        report = executor.handle("runtime.usage.summary", {"by": "task"})
    finally:
        executor.close()
    by_session = {row["localTaskId"]: row for row in report["rows"]}
    assert len(by_session) == 2
    assert report["total"]["totalTokens"] == _billed(first, again, on_fork) == 72
    assert sorted(row["totalTokens"] for row in by_session.values()) == [18, 54]
    assert report["total"]["calls"] == 4

    naive = 0
    rollouts = agent_sandbox.host(agent_sandbox.homes.home) / ".codex" / "sessions"
    for path in rollouts.rglob("rollout-*.jsonl"):
        totals = [
            line["payload"]["info"]["total_token_usage"]["total_tokens"]
            for line in map(json.loads, path.read_text().splitlines())
            if line["type"] == "event_msg" and line["payload"]["type"] == "token_count"
        ]
        naive += totals[-1]
    assert naive == 126  # what summing each file's running total would report


def test_claude_lines_of_one_message_count_once(
    agent_sandbox: AgentSandbox, isolated_home: Path
) -> None:
    """Issue 24: Claude writes a line per content block, each with the message's usage."""
    tool_turn = agent_sandbox.run_agent("claude", "shell-roundtrip", "run it")
    resumed = agent_sandbox.run_agent("claude", "hello", "again", resume=True)
    assert tool_turn.returncode == resumed.returncode == 0
    (transcript,) = [p for p in tool_turn.store_files if p.suffix == ".jsonl"]
    lines = [json.loads(x) for x in transcript.read_text().splitlines()]
    ids = [x["message"]["id"] for x in lines if x.get("type") == "assistant"]
    assert len(ids) > len(set(ids))  # the CLI really repeats a message id

    executor = _executor(agent_sandbox)
    try:
        report = executor.handle("runtime.usage.summary", {"by": "model"})
    finally:
        executor.close()
    assert report["total"]["totalTokens"] == _billed(tool_turn, resumed)
    assert report["total"]["calls"] == len(set(ids))
    assert PER_REQUEST * len(ids) > report["total"]["totalTokens"]  # per-line sums overcount
