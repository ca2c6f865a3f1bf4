"""Gemini CLI 0.61.0 offline against the fake model's Gemini routes (``wire_gemini``): the
facts a Gemini provider would build on — the wire format, the session file a run writes under
an explicit ``--session-id``, and no lookup beyond loopback."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from hangar.agents.acp_client import AcpClient, AcpError
from hangar.testing.agent_clis import CLIS
from hangar.testing.agent_runs import AgentRun, AgentSandbox
from hangar.testing.scenarios import Workspace, scenario_from_dict

pytestmark = pytest.mark.real_agents

RunAgent = Callable[..., AgentRun]
SESSION = "3f1c9a52-7d4e-4b8a-9c61-0e2d5f7a8b90"


def records(run: AgentRun) -> list[dict[str, Any]]:
    (chat,) = [p for p in run.store_files if p.suffix == ".jsonl" and "/chats/" in str(p)]
    return run.records(chat)


def test_gemini_tool_round_trip_offline_in_the_named_session(run_agent: RunAgent) -> None:
    """A `RUN:` turn: Gemini calls `run_shell_command` (it really runs), then answers; every
    request went to the fake model's `streamGenerateContent` and no DNS lookup was made; the
    session file records the call, its result, the reply, tokens and model."""
    scenario = scenario_from_dict(
        {
            "name": "gemini-shell",
            "turns": [{"shell": "echo hi > marker.txt"}, {"text": "Done: the command ran."}],
        }
    )
    run = run_agent("gemini", scenario, "RUN: echo hi > marker.txt")
    assert run.returncode == 0, run.stderr[-3000:]
    assert (run.cwd / "marker.txt").read_text() == "hi\n"
    assert run.dns_queries == []
    paths = {r["path"].split("?")[0] for r in run.requests}
    assert paths == {"/v1beta/models/fake-model:streamGenerateContent"}, paths
    turns = [r for r in run.requests if r.get("kind") == "turn"]
    assert len(turns) == 2 and "run_shell_command" in turns[0]["tools"]
    lines = records(run)
    assert lines[0]["sessionId"] == run.session_id
    said = [line for line in lines if line.get("type") in ("user", "gemini")]
    calls = [c for line in said for c in line.get("toolCalls") or []]
    assert calls[-1]["name"] == "run_shell_command" and calls[-1]["status"] == "success"
    assert said[-1]["content"] == "Done: the command ran."
    assert said[-1]["tokens"]["input"] == 11 and said[-1]["model"] == "fake-model"
    assert json.dumps(lines).count("RUN: echo hi > marker.txt") >= 1


def test_gemini_writes_the_session_named_by_session_id(agent_sandbox: AgentSandbox) -> None:
    """``--session-id ID`` makes a new session with exactly that id: the chat file's name ends
    with the id's first 8 characters and its first record carries the whole id (what a
    provider would follow, never the newest file)."""
    box = agent_sandbox
    box.sandbox.load(scenario_from_dict({"name": "gemini-id", "turns": [{"text": "Hello."}]}))
    work = box.workspace("projects/gemini-id", Workspace())
    argv = [CLIS["gemini"].executable(), "--session-id", SESSION, "--skip-trust", "-p", "hi"]
    done = box.sandbox.run(argv, cwd=work, env=box.env("gemini"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.decode().strip() == "Hello."
    chats = list((box.host(box.homes.home) / ".gemini" / "tmp").glob("*/chats/*.jsonl"))
    assert [p.name.endswith(f"-{SESSION[:8]}.jsonl") for p in chats] == [True]
    first = json.loads(chats[0].read_text().splitlines()[0])
    assert first["sessionId"] == SESSION and first["kind"] == "main"


def test_gemini_acp_mode_runs_offline(agent_sandbox: AgentSandbox) -> None:
    """``gemini --acp`` over hangar's ACP client: the session a provider would drive — a
    `RUN:` prompt ends its turn after a completed `execute` tool call (the command really
    ran) and the reply's text chunks; a failed model request fails the prompt with the
    model's message."""
    box = agent_sandbox
    turns = [{"shell": "echo hi > marker.txt"}, {"text": "Done: the command ran."},
             {"error": {"status": 400, "message": "the fake model refuses"}}]  # fmt: skip
    box.sandbox.load(scenario_from_dict({"name": "gemini-acp", "turns": turns}))
    work = box.workspace("projects/gemini-acp", Workspace())
    client = AcpClient(box.spawn("gemini", ["--acp", "--yolo"], cwd=work), timeout=90)
    try:
        assert client.initialize()["protocolVersion"] == 1
        session = client.new_session(str(work))
        done = client.prompt(session, "RUN: echo hi > marker.txt")
        updates = [u["update"] for u in done.updates]
        with pytest.raises(AcpError, match="the fake model refuses"):
            client.prompt(session, "fail please")
    finally:
        client.close()
    assert done.stop_reason == "end_turn"
    assert (box.host(work) / "marker.txt").read_text() == "hi\n"
    tools = [u for u in updates if u["sessionUpdate"] in ("tool_call", "tool_call_update")]
    assert tools[-1]["kind"] == "execute" and tools[-1]["status"] == "completed"
    said = "".join(
        u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"
    )
    assert said == "Done: the command ran."
