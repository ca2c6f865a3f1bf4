"""Provider contract and mappers: registry, owned flags, Codex frames, Claude transcripts."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from hangar.errors import UsageError
from hangar.hub_client import HubClient
from hangar.localrun.hub_api import HttpRunApi, InMemoryRunApi
from hangar.localrun.providers.base import IssueContext, MessageSink, Provider, UsageSink
from hangar.localrun.providers.claude import ClaudeProvider, HookServer, hook_settings
from hangar.localrun.providers.claude_events import ClaudeTranscriptTracker
from hangar.localrun.providers.codex import CodexProvider
from hangar.localrun.providers.codex_events import (
    CodexEventMapper,
    inject_developer_instructions,
)
from hangar.localrun.providers.continue_cli import ContinueProvider
from hangar.localrun.providers.copilot import CopilotProvider
from hangar.localrun.providers.cursor import CursorProvider
from hangar.localrun.providers.opencode import OpenCodeProvider
from hangar.localrun.providers.registry import executable_name, provider_for, register_provider
from hangar.localrun.pty_runner import ChildCommand, ScriptedPtyRunner
from hangar.localrun.run_session import RunOptions, run_local
from hangar.localrun.spool import Spool
from hangar.model.run_messages import RunMessage, UsageEntry

from .conftest import TOKEN


class Sink:
    def __init__(self) -> None:
        self.messages: list[RunMessage] = []
        self.usage: list[UsageEntry] = []

    def report(self, message: RunMessage) -> None:
        self.messages.append(message)

    def add(self, delta: UsageEntry) -> None:
        self.usage.append(delta)

    def kinds(self) -> list[tuple[str, str | None]]:
        return [(m.type, m.tool) for m in self.messages]


ISSUE = IssueContext("HGR-7", "Fix the thing")


def test_provider_is_picked_by_executable_basename() -> None:
    """LR-122/LR-123: one registry; basename(args[0]) minus .exe chooses the provider."""
    assert provider_for("/opt/bin/codex") is CodexProvider
    assert provider_for("claude.exe") is ClaudeProvider
    assert provider_for("/usr/local/bin/cn") is ContinueProvider
    assert provider_for("copilot") is CopilotProvider
    assert executable_name("/x/y/claude.exe") == "claude"
    with pytest.raises(
        UsageError, match="supported: agy, antigravity, claude, cn, codex, copilot, cursor-agent"
    ):
        provider_for("aider")


@pytest.mark.parametrize(
    ("provider", "args"),
    [
        (CodexProvider, ["codex", "--remote", "ws://x"]),
        (CodexProvider, ["codex", "exec", "hi"]),
        (CodexProvider, ["codex", "app-server"]),
        (CodexProvider, ["codex", "review"]),
        (ClaudeProvider, ["claude", "--settings", "x.json"]),
        (ClaudeProvider, ["claude", "--settings=x.json"]),
        (OpenCodeProvider, ["opencode", "--port", "4096"]),
        (ContinueProvider, ["cn", "--fork", "5d020d48-c996-4221-b78b-9c588ec6643d"]),
    ],
)
def test_flags_hangar_owns_are_refused(provider: type[Provider], args: list[str]) -> None:
    """LR-186: a clear refusal of the flags hangar sets itself."""
    instance = provider(ScriptedPtyRunner(lambda _c: 0), ISSUE)
    with pytest.raises(UsageError, match="hangar sets it itself"):
        instance.validate(args)


@pytest.mark.parametrize(
    ("provider", "args", "problem"),
    [
        (OpenCodeProvider, ["opencode", "run", "hi"], "runs no TUI"),
        (OpenCodeProvider, ["opencode", "--unknown"], "not supported"),
        (CursorProvider, ["cursor-agent", "-p", "hi"], "without its TUI"),
        (CursorProvider, ["cursor-agent", "--output-format=json"], "without its TUI"),
        (CursorProvider, ["cursor-agent", "ls"], "runs no TUI"),
        (CursorProvider, ["cursor-agent", "--resume"], "needs the chat id"),
        (CursorProvider, ["cursor-agent", "--resume=../x"], "needs the chat id"),
        (ContinueProvider, ["cn", "-p", "hi"], "without its TUI"),
        (ContinueProvider, ["cn", "--format=json"], "without its TUI"),
        (ContinueProvider, ["cn", "serve"], "runs no TUI"),
        (CopilotProvider, ["copilot", "-p", "hi"], "without its TUI"),
        (CopilotProvider, ["copilot", "--acp"], "without its TUI"),
        (CopilotProvider, ["copilot", "--continue"], "follows exactly one session"),
        (CopilotProvider, ["copilot", "--resume"], "follows exactly one session"),
        (CopilotProvider, ["copilot", "--resume=../x"], "follows exactly one session"),
        (CopilotProvider, ["copilot", "--session-id"], "needs a session id"),
    ],
)
def test_forms_no_provider_can_follow_are_refused(
    provider: type[Provider], args: list[str], problem: str
) -> None:
    """LR-186: headless modes, other subcommands and an unnamed chat are refused, saying why."""
    instance = provider(ScriptedPtyRunner(lambda _c: 0), ISSUE)
    with pytest.raises(UsageError, match=problem):
        instance.validate(args)
    instance.validate(args[:1])  # the plain TUI is fine


def _frame(method: str, **params: Any) -> str:
    return json.dumps({"method": method, "params": params})


def _start(mapper: CodexEventMapper, request_id: str, thread: str, ephemeral: bool) -> None:
    mapper.client_frame(
        json.dumps({"id": request_id, "method": "thread/start", "params": {"ephemeral": ephemeral}})
    )
    result = {"thread": {"id": thread, "ephemeral": ephemeral}, "model": "gpt-x"}
    mapper.server_frame(json.dumps({"id": request_id, "result": result}))


def _user(mapper: CodexEventMapper, thread: str, turn: str, item: str, text: str) -> None:
    content = [{"type": "text", "text": text}]
    mapper.server_frame(
        _frame("item/completed", threadId=thread, turnId=turn,
               item={"type": "userMessage", "id": item, "content": content})
    )  # fmt: skip


def _agent(mapper: CodexEventMapper, thread: str, turn: str, item: str, text: str) -> None:
    mapper.server_frame(
        _frame("item/completed", threadId=thread, turnId=turn,
               item={"type": "agentMessage", "id": item, "text": text, "phase": None})
    )  # fmt: skip


def _done(mapper: CodexEventMapper, thread: str, turn: str, status: str = "completed") -> None:
    error = {"message": "model exploded"} if status == "failed" else None
    mapper.server_frame(
        _frame("turn/completed", threadId=thread, turn={"id": turn, "status": status,
                                                         "error": error})
    )  # fmt: skip


def test_codex_mapping_turns_tools_helpers_and_switches() -> None:
    """LR-196, LR-198, LR-199, LR-164/165/167: Codex app-server events to run messages."""
    sink = Sink()
    mapper = CodexEventMapper(sink, sink)
    _start(mapper, "startup-1", "T1", ephemeral=False)
    _start(mapper, "temporary-structured-1", "TITLE", ephemeral=True)
    _user(mapper, "TITLE", "X", "u0", "Generate a concise title")  # helper thread: ignored
    _user(mapper, "T1", "U1", "u1", "RUN: ls")
    cmd = {"type": "commandExecution", "id": "call1", "command": "ls", "cwd": "/w"}
    mapper.server_frame(_frame("item/started", threadId="T1", turnId="U1", item=cmd))
    done_cmd = {**cmd, "aggregatedOutput": "a\nb\n", "exitCode": 0, "status": "completed"}
    mapper.server_frame(_frame("item/completed", threadId="T1", turnId="U1", item=done_cmd))
    _agent(mapper, "T1", "U1", "m1", "Done.")
    last = {"inputTokens": 100, "cachedInputTokens": 40, "outputTokens": 7}
    mapper.server_frame(
        _frame("thread/tokenUsage/updated", threadId="T1", turnId="U1",
               tokenUsage={"last": last, "total": last})
    )  # fmt: skip
    _done(mapper, "T1", "U1")
    # /clear: the TUI starts a new thread; a bare slash command in it is not user input
    _start(mapper, "7", "T2", ephemeral=False)
    _user(mapper, "T2", "U2", "u2", "/compact")
    _agent(mapper, "T2", "U2", "m2", "Compacted.")
    _done(mapper, "T2", "U2")
    _user(mapper, "T2", "U3", "u3", "/review main")
    _done(mapper, "T2", "U3", status="failed")
    assert sink.kinds() == [
        ("user_input", None),
        ("tool_use", "exec_command"),
        ("tool_result", "exec_command"),
        ("final", None),
        ("text", None),  # the reply to a bare slash command is never a final (LR-165)
        ("user_input", None),
        ("error", None),
    ]
    keys = [m.source_key for m in sink.messages]
    assert keys[:4] == [
        "thread:T1:turn:U1:user:u1",
        "thread:T1:turn:U1:tool:call1:start",
        "thread:T1:turn:U1:tool:call1:result",
        "thread:T1:turn:U1:agent:m1:final",
    ]
    assert sink.messages[2].output == "a\nb\n"
    assert sink.messages[5].input["commentable"] and sink.messages[5].input["command"]
    assert sink.messages[6].content == "model exploded"
    assert sink.usage == [UsageEntry("codex", "gpt-x", 60, 7, 40, 0)]


def test_codex_resume_plan_and_file_changes() -> None:
    """LR-197, LR-204: /resume back to an earlier thread; plans and file changes."""
    sink = Sink()
    mapper = CodexEventMapper(sink, sink)
    _start(mapper, "a", "T1", ephemeral=False)
    _start(mapper, "b", "T2", ephemeral=False)
    mapper.client_frame(json.dumps({"id": "c", "method": "thread/resume", "params": {}}))
    mapper.server_frame(json.dumps({"id": "c", "result": {"thread": {"id": "T1"}}}))
    _user(mapper, "T1", "U9", "u9", "plan it")
    plan = {"type": "plan", "id": "p1", "text": "1. read\n2. write"}
    mapper.server_frame(_frame("item/completed", threadId="T1", turnId="U9", item=plan))
    change = {"type": "fileChange", "id": "f1", "changes": [{"path": "a.py", "diff": "+x"}]}
    mapper.server_frame(_frame("item/started", threadId="T1", turnId="U9", item=change))
    mapper.server_frame(_frame("item/completed", threadId="T1", turnId="U9", item=change))
    assert sink.kinds() == [
        ("user_input", None),
        ("text", None),
        ("tool_use", "patch_apply"),
        ("tool_result", "patch_apply"),
    ]
    assert sink.messages[1].input["kind"] == "codex_proposed_plan"
    assert sink.messages[1].content.startswith("Proposed Plan")
    assert sink.messages[2].input["paths"] == ["a.py"] and sink.messages[3].output == "+x"
    question = {"id": "q1", "question": "Which branch?", "options": [{"label": "main"}]}
    mapper.server_frame(
        json.dumps({"id": 5, "method": "item/tool/requestUserInput",
                    "params": {"threadId": "T1", "turnId": "U9", "itemId": "r1",
                               "questions": [question]}})
    )  # fmt: skip
    asked = sink.messages[-1]
    assert (asked.type, asked.content, asked.input["kind"]) == (
        "text",
        "Which branch?",
        "user_input_request",
    )
    assert asked.source_key == "thread:T1:turn:U9:request:r1"


def test_codex_mapping_is_deterministic() -> None:
    """LR-160/LR-161: a sourceKey comes from Codex's own ids: the same events give the same
    keys even after other events went through the mapper (a counter or the time would differ),
    and every key names its thread, turn and item."""
    runs = []
    for earlier in (0, 3):
        sink = Sink()
        mapper = CodexEventMapper(sink, sink)
        _start(mapper, "a", "T", ephemeral=False)
        for n in range(earlier):  # other turns first: counters would move
            _user(mapper, "T", f"E{n}", f"eu{n}", "earlier")
            _agent(mapper, "T", f"E{n}", f"em{n}", "earlier reply")
            _done(mapper, "T", f"E{n}")
        before = len(sink.messages)
        _user(mapper, "T", "U", "u-item", "hi")
        _agent(mapper, "T", "U", "m-item", "hello")
        _done(mapper, "T", "U")
        runs.append([m.source_key for m in sink.messages[before:]])
    assert runs[0] == runs[1] and len(runs[0]) == 2
    assert runs[0][0].startswith("thread:T:turn:U:") and "u-item" in runs[0][0]
    assert runs[0][1].startswith("thread:T:turn:U:") and "m-item" in runs[0][1]


def test_codex_issue_context_goes_to_developer_instructions_only() -> None:
    """LR-163: the issue context is injected as instructions, never as a user message."""
    start = {"id": "1", "method": "thread/start", "params": {"developerInstructions": "be nice"}}
    out = json.loads(inject_developer_instructions(json.dumps(start), "ISSUE CTX"))
    assert out["params"]["developerInstructions"] == "be nice\n\nISSUE CTX"
    helper = {"id": "temporary-structured-1", "method": "thread/start", "params": {}}
    assert inject_developer_instructions(json.dumps(helper), "X") == json.dumps(helper)
    turn = {"id": "2", "method": "turn/start", "params": {"input": []}}
    assert inject_developer_instructions(json.dumps(turn), "X") == json.dumps(turn)


def _line(path: Path, record: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")


def _assistant(uuid: str, blocks: list[dict[str, Any]], stop: str | None) -> dict[str, Any]:
    message = {
        "id": "msg_" + uuid,
        "model": "opus",
        "content": blocks,
        "stop_reason": stop,
        "usage": {"input_tokens": 10, "output_tokens": 3, "cache_read_input_tokens": 2},
    }
    return {"type": "assistant", "uuid": uuid, "message": message}  # fmt: skip


def test_claude_tracker_maps_hook_confirmed_sessions(tmp_path: Path) -> None:
    """LR-216..LR-220, LR-164, LR-176, LR-179, LR-181: transcripts the hook reported, mapped; a text
    block before a tool call is ``text`` (LR-216), the turn's last one ``final``."""
    sink = Sink()
    tracker = ClaudeTranscriptTracker(sink, sink)
    first, second, foreign = tmp_path / "s1.jsonl", tmp_path / "s2.jsonl", tmp_path / "x.jsonl"
    _line(foreign, {"type": "user", "uuid": "f1", "message": {"content": "not ours"}})
    tracker.follow("S1", first, "startup")
    _line(first, {"type": "user", "uuid": "u1", "message": {"content": "fix it"}})
    _line(first, _assistant("a1", [{"type": "thinking", "thinking": "hmm"},
                                   {"type": "text", "text": "Let me look first."},
                                   {"type": "tool_use", "id": "t1", "name": "Bash",
                                    "input": {"command": "ls"}}], "tool_use"))  # fmt: skip
    _line(first, {"type": "user", "uuid": "u2", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "a b"}]}})  # fmt: skip
    _line(first, _assistant("a2", [{"type": "text", "text": "Fixed."}], "end_turn"))
    tracker.poll()
    # meta lines and local command output never become user input; a bare /clear neither
    _line(first, {"type": "user", "uuid": "u3", "isMeta": True, "message": {"content": "x"}})
    clear = "<command-name>/clear</command-name>\n<command-args></command-args>"
    _line(first, {"type": "user", "uuid": "u4", "message": {"content": clear}})
    stdout = "<local-command-stdout>ok</local-command-stdout>"
    _line(first, {"type": "user", "uuid": "u5", "message": {"content": stdout}})
    tracker.follow("S2", second, "clear")
    review = "<command-name>/review</command-name>\n<command-args>main</command-args>"
    _line(second, {"type": "user", "uuid": "v1", "message": {"content": review}})
    _line(second, _assistant("b1", [{"type": "text", "text": "Looks good."}], None))
    _line(second, {"type": "system", "subtype": "turn_duration", "durationMs": 1500})
    tracker.poll()
    tracker.poll()  # nothing new: nothing reported twice
    tracker.close()
    assert sink.kinds() == [
        ("user_input", None),
        ("thinking", None),
        ("text", None),
        ("tool_use", "Bash"),
        ("tool_result", "Bash"),
        ("final", None),
        ("user_input", None),
        ("final", None),
    ]
    assert sink.messages[2].content == "Let me look first."
    assert sink.messages[5].content == "Fixed."
    assert sink.messages[6].content == "/review main" and sink.messages[6].input["commentable"]
    assert sink.messages[4].output == "a b"
    assert sink.messages[5].source_key == "claude:session:S1:line:a2:final"
    assert sink.messages[3].source_key == "claude:session:S1:line:a1:tool-use:t1"
    assert all("not ours" not in m.content for m in sink.messages)
    assert tracker.active_ms == 1500
    assert {u.model for u in sink.usage} == {"opus"}


def test_claude_resumed_session_starts_at_the_end(tmp_path: Path) -> None:
    """A resumed transcript's earlier lines belong to earlier runs and are not re-sent."""
    sink = Sink()
    tracker = ClaudeTranscriptTracker(sink, sink)
    path = tmp_path / "s.jsonl"
    _line(path, {"type": "user", "uuid": "old", "message": {"content": "yesterday"}})
    tracker.follow("S", path, "resume")
    _line(path, {"type": "user", "uuid": "new", "message": {"content": "today"}})
    tracker.close()
    assert [m.content for m in sink.messages] == ["today"]


def test_claude_hook_settings_and_server(tmp_path: Path) -> None:
    """LR-206/LR-207: a SessionStart hook (matcher *) calling the hidden hook command."""
    settings = hook_settings(1234, "secret")
    hook = settings["hooks"]["SessionStart"][0]
    assert hook["matcher"] == "*"
    assert "__claude-session-hook --port 1234 --token secret" in hook["hooks"][0]["command"]
    sink = Sink()
    tracker = ClaudeTranscriptTracker(sink, sink)
    server = HookServer(tracker, {"HOME": str(tmp_path)}, tmp_path).start()
    try:
        import subprocess
        import sys

        payload = json.dumps({"session_id": "S9", "transcript_path": str(tmp_path / "t.jsonl"),
                              "source": "startup"})  # fmt: skip
        argv = [sys.executable, "-m", "hangar", "__claude-session-hook", "--port",
                str(server.port), "--token", server.token]  # fmt: skip
        done = subprocess.run(argv, input=payload.encode(), capture_output=True, timeout=30)
        assert done.returncode == 0 and done.stdout == b""  # stdout would become context
        forged = subprocess.run(
            [*argv[:-1], "wrong"], input=b'{"session_id": "EVIL"}', capture_output=True,
            timeout=30,
        )  # fmt: skip
        assert forged.returncode == 0
    finally:
        server.stop()
    assert list(tracker.sessions) == ["S9"]


@register_provider
class EchoProvider(Provider):
    """A provider registered like any plugin would be; it reports one turn and exits 3."""

    name = "echo-test"
    executables = ("echo-test-cli",)

    def run(
        self,
        args: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        reporter: MessageSink,
        usage_reporter: UsageSink,
    ) -> int:
        reporter.report(RunMessage("user_input", "echo", "echo:u1", content="hi",
                                   input={"turnKey": "t"}))  # fmt: skip
        usage_reporter.add(UsageEntry("echo", "m", 1, 2))
        return self.runner.run(ChildCommand(args, cwd, env))


def test_run_session_lifecycle_in_memory(tmp_path: Path) -> None:
    """LR-002..LR-004, LR-123, LR-125: the generic entry point around a provider."""
    api = InMemoryRunApi()
    api.issues["HGR-7"] = {"id": "iss7", "key": "HGR-7", "title": "Fix", "status": "todo"}
    seen: list[ChildCommand] = []

    def child(command: ChildCommand) -> int:
        seen.append(command)
        return 3

    stderr = io.StringIO()
    summary = run_local(
        RunOptions("HGR-7", ["./bin/echo-test-cli", "--flag"], tmp_path),
        api,
        ScriptedPtyRunner(child),
        {"HANGAR_TOKEN": "user-token", "PATH": os.environ["PATH"]},
        Spool(tmp_path / "spool"),
        stderr,
    )
    assert summary.exit_code == 3
    assert seen[0].argv[0] == "./bin/echo-test-cli"  # args[0] exactly as given
    assert seen[0].env["HANGAR_TOKEN"] == "run-token-run-1"
    assert "user-token" not in seen[0].env.values()
    run = api.runs["run-1"]
    assert (run["status"], run["exitCode"], run["cliName"]) == ("failed", 3, "echo-test-cli")
    assert "exited with 3" in run["error"]
    assert [m["sourceKey"] for m in api.messages["run-1"]] == ["echo:u1"]
    assert api.usage["run-1"][0]["outputTokens"] == 2
    assert "local run of HGR-7 finished" in summary.line()


def test_an_error_that_is_no_task_message_goes_to_the_final_status(
    tmp_path: Path, live_hub: str
) -> None:
    """LR-156 (the other branch): a failure the agent does not log as a turn error (its CLI
    exits with 3) writes no ``error`` run message; it is the ``error`` of the run's final
    status, on the real hub."""
    with HubClient(live_hub, TOKEN) as client:
        issue = client.post("/api/issues", {"title": "Fails outside a turn"})
        summary = run_local(
            RunOptions(issue["key"], ["./bin/echo-test-cli"], tmp_path),
            HttpRunApi(client),
            ScriptedPtyRunner(lambda _command: 3),
            {"PATH": os.environ["PATH"]},
            Spool(tmp_path / "spool"),
            io.StringIO(),
        )
        run = client.get(f"/api/local-runs/{summary.run_id}")
        messages = client.get(f"/api/local-runs/{summary.run_id}/messages")["messages"]
    assert (run["status"], run["exitCode"]) == ("failed", 3)
    assert run["error"] == "echo-test-cli exited with 3"
    assert [m["type"] for m in messages] == ["user_input"]
