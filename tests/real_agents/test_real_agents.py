"""The four real CLIs, offline, against the fake model, in a loopback-only sandbox.

For each CLI: a plain text turn, a shell round trip that really changes a file in the cwd,
and a plan/todo tool call, each checked in the CLI's own store. Every run is also checked
for its network behaviour (see ``assert_only_loopback``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest
import real_agent_stores as store

from hangar.testing.agent_runs import AgentRun, AgentSandbox
from hangar.testing.scenarios import builtin_scenario

pytestmark = pytest.mark.real_agents
RunAgent = Callable[..., AgentRun]
CLIS = ["codex", "claude", "opencode", "cn"]
# Lookups a CLI makes on every run whatever it is told (real-agent-clis.md §1); the DNS
# sink answers them with REFUSED and, with no interface but lo, no connection can follow.
EXPECTED_LOOKUPS = {
    "codex": set(),
    "claude": set(),
    "opencode": {"registry.npmjs.org"},
    "cn": {"api.continue.dev"},
}
ROUTE = {
    "codex": "/v1/responses",
    "claude": "/v1/messages",
    "opencode": "/v1/chat/completions",
    "cn": "/v1/chat/completions",
}


def assert_only_loopback(run: AgentRun) -> None:
    """What "no request to anything but the fake server" means here, exactly:

    1. every request the fake server logged came from 127.0.0.1, went to the CLI's own API
       route and was answered 200 (no rejected or unexpected request);
    2. every DNS query the sink logged is one of the CLI's known phone-home names, and the
       sink refused each (``test_sandbox`` shows lookups fail in well under a second and
       that ``lo`` is the only interface, so a connection off the box is impossible);
    3. the run's model requests all reached the fake server (at least one per run).
    """
    assert run.requests, "the CLI never reached the fake model"
    for request in run.requests:
        assert request["client"] == "127.0.0.1"
        assert request["path"].split("?")[0] == ROUTE[run.cli]
        assert request["status"] == 200, request
    assert {q["name"] for q in run.dns_queries} <= EXPECTED_LOOKUPS[run.cli]


def turn_kinds(run: AgentRun) -> list[str]:
    return [r["kind"] for r in run.requests if r["kind"] != "side"]


@pytest.mark.parametrize("cli", CLIS)
def test_plain_text_turn(cli: str, run_agent: RunAgent) -> None:
    run = run_agent(cli, "hello", "Say hello")
    text = builtin_scenario("hello").turns[0].text
    assert run.returncode == 0, run.stderr
    assert turn_kinds(run) == ["turn"]
    assert_only_loopback(run)
    if cli == "codex":
        messages = [i for i in store.codex_items(run) if i.get("role") == "assistant"]
        assert [c["text"] for c in messages[-1]["content"]] == [text]
        assert {
            "type": "item.completed",
            "item": {"id": "item_1", "type": "agent_message", "text": text},
        } in run.events
    elif cli == "claude":
        assert [b["text"] for b in store.claude_blocks(run, "text")] == [text]
        assert run.events[-1]["type"] == "result" and run.events[-1]["result"] == text
    elif cli == "opencode":
        parts = store.opencode_parts(run)
        assert [p["text"] for p in parts if p["type"] == "text"] == ["Say hello", text]
        title = run.opencode_rows("session")[0]["title"]
        assert title == builtin_scenario("hello").title  # answered by the side request
    else:
        history = store.cn_history(run)
        assert history[-1]["message"] == {
            **history[-1]["message"],
            "role": "assistant",
            "content": text,
        }
        assert run.stdout.strip() == text


@pytest.mark.parametrize("cli", CLIS)
def test_shell_round_trip_changes_a_file(cli: str, run_agent: RunAgent) -> None:
    run = run_agent(cli, "shell-roundtrip", "Write the marker file")
    assert run.returncode == 0, run.stderr
    assert (run.cwd / "marker.txt").read_text() == "hello-from-tool\n"
    assert turn_kinds(run) == ["turn", "turn"]
    assert_only_loopback(run)
    command = "echo hello-from-tool > marker.txt"
    if cli == "codex":
        items = store.codex_items(run)
        call = next(i for i in items if i["type"] == "function_call")
        assert (call["name"], json.loads(call["arguments"])) == ("exec_command", {"cmd": command})
        output = next(i for i in items if i["type"] == "function_call_output")
        assert output["call_id"] == call["call_id"] and "exited with code 0" in output["output"]
        assert any(i["type"] == "reasoning" for i in items)
    elif cli == "claude":
        (use,) = store.claude_blocks(run, "tool_use")
        assert (use["name"], use["input"]) == ("Bash", {"command": command})
        (result,) = store.claude_blocks(run, "tool_result")
        assert result["tool_use_id"] == use["id"] and not result.get("is_error")
        assert [b["thinking"] for b in store.claude_blocks(run, "thinking")] == [
            builtin_scenario("shell-roundtrip").turns[0].reasoning
        ]
    elif cli == "opencode":
        (tool,) = [p for p in store.opencode_parts(run) if p["type"] == "tool"]
        assert tool["tool"] == "bash" and tool["state"]["status"] == "completed"
        assert tool["state"]["input"]["command"] == command
        assert tool["state"]["metadata"]["exit"] == 0
    else:
        (state,) = store.cn_tool_states(run)
        assert state["toolCall"]["function"]["name"] == "Bash"
        assert json.loads(state["toolCall"]["function"]["arguments"]) == {"command": command}
        assert state["status"] == "done"


PLAN = [
    ("Reproduce the bug", "completed"),
    ("Write the fix", "in_progress"),
    ("Add a regression test", "pending"),
]


@pytest.mark.parametrize("cli", CLIS)
def test_plan_tool_call(cli: str, run_agent: RunAgent) -> None:
    run = run_agent(cli, "plan", "Plan the work")
    assert run.returncode == 0, run.stderr
    assert turn_kinds(run) == ["turn", "turn"]
    assert_only_loopback(run)
    if cli == "codex":
        call = next(i for i in store.codex_items(run) if i["type"] == "function_call")
        assert call["name"] == "update_plan"
        plan = json.loads(call["arguments"])["plan"]
        assert [(s["step"], s["status"]) for s in plan] == PLAN
        todo = next(e["item"] for e in run.events if e.get("item", {}).get("type") == "todo_list")
        assert [i["completed"] for i in todo["items"]] == [True, False, False]
    elif cli == "claude":
        (use,) = store.claude_blocks(run, "tool_use")
        assert use["name"] == "TodoWrite"
        result = next(line for line in store.claude_lines(run) if "toolUseResult" in line)
        new = result["toolUseResult"]["newTodos"]
        assert [(t["content"], t["status"]) for t in new] == PLAN
    elif cli == "opencode":
        rows = run.opencode_rows("todo")
        assert [(r["content"], r["status"]) for r in rows] == PLAN
        assert {r["session_id"] for r in rows} == {run.session_id}
        assert [r["priority"] for r in rows] == ["medium", "high", "medium"]
    else:
        (state,) = store.cn_tool_states(run)
        assert state["toolCall"]["function"]["name"] == "Checklist"
        checklist = json.loads(state["toolCall"]["function"]["arguments"])["checklist"]
        assert (
            checklist == "- [x] Reproduce the bug\n- [ ] Write the fix\n- [ ] Add a regression test"
        )
        assert state["status"] == "done"


def test_long_lived_processes_end_with_the_sandbox(agent_sandbox: AgentSandbox) -> None:
    """``codex app-server`` (stdio) and ``opencode serve`` (HTTP, reached from the test
    process through the sandbox) start, answer, and are gone after ``close``."""
    cwd = agent_sandbox.workspace("projects/live", builtin_scenario("hello").workspace)
    app = agent_sandbox.spawn("codex", ["app-server"], cwd=cwd)
    assert app.stdin is not None and app.stdout is not None
    hello = {
        "id": 1,
        "method": "initialize",
        "params": {"clientInfo": {"name": "hangar-test", "title": "hangar", "version": "0.0.1"}},
    }
    app.stdin.write((json.dumps(hello) + "\n").encode())
    app.stdin.flush()
    reply = next(m for m in map(json.loads, app.stdout) if m.get("id") == 1)
    assert reply["result"]["platformOs"] == "linux"

    port = 4096
    serve = agent_sandbox.spawn(
        "opencode",
        ["serve", "--port", str(port), "--hostname", "127.0.0.1"],
        cwd=cwd,
        stdin_pipe=False,
    )
    assert serve.stdout is not None
    next(line for line in serve.stdout if b"listening" in line.lower())
    status, body = agent_sandbox.sandbox.http("GET", port, "/global/health")
    assert status == 200 and json.loads(body)["healthy"] is True

    started = agent_sandbox.sandbox.namespace_pids(include_helper=False)
    assert app.pid in started and serve.pid in started
    agent_sandbox.close()
    assert agent_sandbox.sandbox.namespace_pids() == []
    assert app.poll() is not None and serve.poll() is not None


def test_codex_tui_on_a_pty_takes_keystrokes(agent_sandbox: AgentSandbox) -> None:
    """The interactive TUI on a real PTY: typed prompt → fake model → rollout on disk."""
    agent_sandbox.sandbox.load(builtin_scenario("hello"))
    cwd = agent_sandbox.workspace("projects/tui", builtin_scenario("hello").workspace)
    tui = agent_sandbox.spawn_pty("codex", [], cwd=cwd, rows=40, cols=120)
    tui.expect("Ask Codex to do anything", timeout=60)
    tui.send("Say hello")
    tui.expect("hello", timeout=20)
    tui.send("\r")
    sessions = agent_sandbox.host(agent_sandbox.homes.home / ".codex" / "sessions")
    text = builtin_scenario("hello").turns[0].text
    assert text is not None
    deadline = time.monotonic() + 60
    while not any(text in p.read_text() for p in sessions.rglob("rollout-*.jsonl")):
        assert time.monotonic() < deadline, bytes(tui.output[-2000:])
        tui.read_available(0.5)  # keep the PTY drained while codex works
    turns = [r for r in agent_sandbox.sandbox.requests() if r["kind"] == "turn"]
    assert len(turns) == 1 and turns[0]["headers"].get("originator") == "codex-tui"
    tui.close()


@pytest.mark.parametrize("cli", CLIS)
def test_resume_continues_the_same_session(cli: str, run_agent: RunAgent) -> None:
    first = run_agent(cli, "hello", "Say hello")
    second = run_agent(cli, "plan", "Now plan", resume=True, cwd=first.cwd_inside)
    assert second.returncode == 0, second.stderr
    assert first.session_id and second.session_id == first.session_id
    assert_only_loopback(second)
    # the resumed request carries the first turn's conversation
    first_text = builtin_scenario("hello").turns[0].text
    assert first_text is not None
    assert first_text in json.dumps(second.requests[-1]["body"])
