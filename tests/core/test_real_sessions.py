"""Sessions the real CLIs wrote (codex 0.171, claude 2.1.332, offline in the loopback-only
sandbox against the scripted fake model), read back through the executor and compared with
snapshots of their normalized shape (ids, times and paths replaced by placeholders)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from hangar.executor.service import Executor
from hangar.testing.agent_runs import AgentRun

from .test_snapshots import check_snapshot

pytestmark = pytest.mark.real_agents

RunAgent = Callable[..., AgentRun]
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_VOLATILE = {"createdAt", "completedAt", "durationMs", "updatedAt", "deviceId", "localTaskId"}


def _shape(value: Any, home: str) -> Any:
    if isinstance(value, dict):
        return {
            k: _shape(v, home)
            for k, v in sorted(value.items())
            if k not in _VOLATILE and k not in ("id", "turnId", "toolUseId")
        }
    if isinstance(value, list):
        return [_shape(v, home) for v in value]
    if isinstance(value, str):
        text = _UUID.sub("<uuid>", value.replace(home, "<home>"))
        text = re.sub(r"call_[A-Za-z0-9_]+|toolu_[A-Za-z0-9_]+", "<call>", text)
        text = re.sub(r"Chunk ID: \w+", "Chunk ID: <id>", text)
        return re.sub(r"Wall time: [\d.]+", "Wall time: <t>", text)
    return value


def _read_back(run: AgentRun, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    assert run.returncode == 0, run.stderr[-2000:]
    monkeypatch.setenv("HOME", str(run.home))
    monkeypatch.setenv("CODEX_HOME", str(run.home / ".codex"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(run.home / ".claude"))
    executor = Executor.open()
    runtime = "codex" if run.cli == "codex" else "claude"
    tasks = executor.handle("runtime.tasks.list", {"runtime": runtime})["tasks"]
    assert len(tasks) == 1, tasks
    page = executor.handle("runtime.tasks.transcript", {"localTaskId": tasks[0]["localTaskId"]})
    assert page["task"]["runtimeHandle"] in ({"threadId": run.session_id},
                                              {"sessionId": run.session_id})  # fmt: skip
    return page


@pytest.mark.parametrize("cli", ["codex", "claude"])
@pytest.mark.parametrize("scenario", ["shell-roundtrip", "plan"])
def test_real_cli_session_snapshot(
    cli: str, scenario: str, run_agent: RunAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RW-066, RW-073, RW-227 (0.171 writes no user_message), CL-067: a real session's
    normalized transcript: the prompt without injected context, one reply with its tool
    call (and checklist for `plan`), stable across runs."""
    run = run_agent(cli, scenario, f"Please run the {scenario} scenario")
    page = _read_back(run, monkeypatch)
    users = [m for m in page["messages"] if m["role"] == "user"]
    assert [u["content"] for u in users] == [f"Please run the {scenario} scenario"]
    data = {"task": {k: page["task"][k] for k in ("runtime", "status", "workspaceKind")},
            "messages": page["messages"], "checklist": page.get("checklist")}  # fmt: skip
    check_snapshot(f"real__{cli}__{scenario}.json", _shape(data, str(run.home)))


@pytest.mark.parametrize("cli", ["codex", "claude"])
def test_real_resumed_session_appends_incrementally(
    cli: str, run_agent: RunAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RW-077..080 on real files: a resumed session grows the same transcript; the cached
    read takes the append path and equals a fresh full parse (codex 0.171, claude 2.1.332)."""
    first = run_agent(cli, "hello", "Say hello")
    page = _read_back(first, monkeypatch)
    executor = Executor.open()
    task_id = executor.handle("runtime.tasks.list", {})["tasks"][0]["localTaskId"]
    before = executor.handle("runtime.tasks.transcript", {"localTaskId": task_id})
    assert before["messages"] == page["messages"]
    second = run_agent(cli, "shell-roundtrip", "Now write the marker", resume=True)
    assert second.returncode == 0, second.stderr[-2000:]
    grown = executor.handle("runtime.tasks.transcript", {"localTaskId": task_id})
    if executor.engine.stats.appends == 0:
        pytest.fail(f"{cli} resume did not append to the same file: {executor.engine.stats}")
    fresh = Executor.open()
    fresh.handle("runtime.tasks.list", {})
    full = fresh.handle("runtime.tasks.transcript", {"localTaskId": task_id})
    assert grown["messages"] == full["messages"]
    assert [m["content"] for m in grown["messages"] if m["role"] == "user"] == [
        "Say hello", "Now write the marker"]  # fmt: skip
    assert grown["messages"][: len(before["messages"]) - 1] == before["messages"][:-1]
