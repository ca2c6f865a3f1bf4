"""Which of an agent's list updates a ``hangar run`` provider commits to the run: the Codex
app-server frames and Claude Code transcript lines in their real shapes, fed to the providers'
mappers, and what reaches the run's messages as ``input.checklist``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hangar.localrun.providers.claude_events import ClaudeTranscriptTracker
from hangar.localrun.providers.codex_events import CodexEventMapper
from hangar.model.run_messages import RunMessage, UsageEntry


class Sink:
    def __init__(self) -> None:
        self.messages: list[RunMessage] = []

    def report(self, message: RunMessage) -> None:
        self.messages.append(message)

    def add(self, delta: UsageEntry) -> None:
        pass

    def plan_calls(self, tool: str) -> list[RunMessage]:
        return [m for m in self.messages if m.type == "tool_use" and m.tool == tool]


def _items(message: RunMessage) -> list[tuple[str, str]] | None:
    checklist = message.input.get("checklist")
    if checklist is None:
        return None
    return [(i["content"], i["status"]) for i in checklist["items"]]


def _server(mapper: CodexEventMapper, method: str, **params: Any) -> None:
    mapper.server_frame(json.dumps({"method": method, "params": params}))


def _start_thread(mapper: CodexEventMapper, request_id: str, thread: str) -> None:
    mapper.client_frame(json.dumps({"id": request_id, "method": "thread/start", "params": {}}))
    mapper.server_frame(json.dumps({"id": request_id, "result": {"thread": {"id": thread}}}))


def _plan(mapper: CodexEventMapper, thread: str, turn: str, *steps: tuple[str, str]) -> None:
    plan = [{"step": step, "status": status} for step, status in steps]
    _server(mapper, "turn/plan/updated", threadId=thread, turnId=turn, plan=plan)


def test_codex_commits_only_its_own_threads_plans() -> None:
    """CL-036, CL-064: a plan update of a sub-agent's thread (one the TUI learns of only from
    ``thread/started``) stays tool activity and never reaches the run's checklist; the
    TUI's own thread commits each valid update, and an invalid one commits nothing (CL-025)."""
    sink = Sink()
    mapper = CodexEventMapper(sink, sink)
    _start_thread(mapper, "1", "T1")
    _plan(mapper, "T1", "U1", ("Read", "inProgress"), ("Write", "pending"))
    _server(mapper, "thread/started", thread={"id": "CHILD"})
    _plan(mapper, "CHILD", "C1", ("Child step", "inProgress"))
    _plan(mapper, "T1", "U1", ("Read", "completed"), ("Write", "bogus"))
    _plan(mapper, "T1", "U1", ("Read", "completed"), ("Write", "inProgress"))
    calls = sink.plan_calls("update_plan")
    assert [_items(m) for m in calls] == [
        [("Read", "in_progress"), ("Write", "pending")],
        None,  # the sub-agent's list
        None,  # the invalid update
        [("Read", "completed"), ("Write", "in_progress")],
    ]
    assert calls[1].input["thread_id"] == "CHILD"  # still visible as tool activity
    assert [m.source_key for m in calls if m.input["thread_id"] == "T1"] == [
        "thread:T1:turn:U1:checklist:1",
        "thread:T1:turn:U1:checklist:2",
        "thread:T1:turn:U1:checklist:3",
    ]


def _line(path: Path, record: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")


def _todo(uuid: str, call: str, todos: list[dict[str, str]], **extra: Any) -> dict[str, Any]:
    block = {"type": "tool_use", "id": call, "name": "TodoWrite", "input": {"todos": todos}}
    message = {"id": f"msg_{uuid}", "model": "opus", "content": [block], "stop_reason": "tool_use"}
    return {"type": "assistant", "uuid": uuid, "message": message, **extra}


def test_claude_commits_todowrite_but_never_a_sidechain_list(tmp_path: Path) -> None:
    """CL-036, CL-064: a ``TodoWrite`` on a sidechain line (a sub-agent's work inside the
    session) never reaches the run; the session's own calls commit, an invalid one commits
    nothing (CL-025) and stays tool activity (CL-067)."""
    sink = Sink()
    tracker = ClaudeTranscriptTracker(sink, sink)
    path = tmp_path / "s.jsonl"
    tracker.follow("S1", path, "startup")
    _line(path, {"type": "user", "uuid": "u1", "message": {"content": "plan it"}})
    first = [{"content": "Read", "status": "in_progress", "activeForm": "Reading"}]
    _line(path, _todo("a1", "t1", first))
    child = [{"content": "Child step", "status": "in_progress", "activeForm": "Childing"}]
    _line(path, _todo("a2", "t2", child, isSidechain=True))
    _line(path, _todo("a3", "t3", [{"content": "Broken", "status": "bogus"}]))
    done = [{"content": "Read", "status": "completed", "activeForm": "Reading"}]
    _line(path, _todo("a4", "t4", done))
    tracker.poll()
    tracker.close()
    calls = sink.plan_calls("TodoWrite")
    assert [_items(m) for m in calls] == [
        [("Read", "in_progress")],
        None,  # the invalid call: kept as a tool call, no checklist
        [("Read", "completed")],
    ]
    assert all("Child step" not in json.dumps(m.input) for m in sink.messages)
