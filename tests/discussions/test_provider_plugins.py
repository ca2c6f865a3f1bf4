"""Providers registered the way a plugin registers (``register_provider``) and `hangar discuss`:
one without a discussion mode (an issue-first plugin) is refused before the hub hears of it;
one with a discussion mode takes part like a built-in, against a real `hangar serve`."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from hangar.errors import UsageError
from hangar.hub_client import HubClient
from hangar.localrun.discussion.hub_api import HttpDiscussionApi
from hangar.localrun.discussion.session import DiscussOptions, discuss_local
from hangar.localrun.providers.base import (
    DiscussionHooks,
    MessageSink,
    Provider,
    UsageSink,
)
from hangar.localrun.providers.registry import register_provider
from hangar.localrun.pty_runner import ChildCommand, ScriptedPtyRunner
from hangar.localrun.spool import Spool
from hangar.model.run_messages import RunMessage
from hub.server_process import running_hub  # tests/hub, a sibling package
from plugins.conftest import write_plugin  # tests/plugins, a sibling package

USER_TOKEN = "user-token-never-for-the-child"


@register_provider
class IssueFirstProvider(Provider):
    """An issue-first provider: it can run an issue, it has no discussion mode."""

    name = "issue-first-test"
    executables = ("issue-first-cli",)

    def run(
        self,
        args: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        reporter: MessageSink,
        usage_reporter: UsageSink,
    ) -> int:
        return self.runner.run(ChildCommand(args, cwd, env))


@register_provider
class DiscussingProvider(Provider):
    """A provider with a discussion mode: its CLI asks one question and gets one answer; a
    thinking message and a tool call come in between (they are not kept)."""

    name = "discussing-test"
    executables = ("discussing-cli",)
    supports_discussion = True

    def run(
        self,
        args: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        reporter: MessageSink,
        usage_reporter: UsageSink,
    ) -> int:
        return self.runner.run(ChildCommand(args, cwd, env))

    def discuss(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], hooks: DiscussionHooks
    ) -> int:
        hooks.session_started("plugin-session-1")
        sink = hooks.sink
        sink.report(RunMessage("user_input", "plugin", "p:u1", content="how do we cache?",
                               input={"turnKey": "t1"}))  # fmt: skip
        sink.report(RunMessage("thinking", "plugin", "p:th1", content="private reasoning"))
        sink.report(RunMessage("tool_use", "plugin", "p:tool1", tool="Read",
                               input={"path": "a.py"}))  # fmt: skip
        sink.report(RunMessage("final", "plugin", "p:f1", content="With a table."))
        hooks.plan_proposed("# Cache\n\n1. A table.\n", "plugin", "p:plan1")
        return self.runner.run(ChildCommand(args, cwd, env))


def _cli(tmp_path: Path, name: str) -> str:
    path = tmp_path / "bin" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return str(path)


def test_plugin_providers_without_and_with_a_discussion_mode(
    hangar_home: Path, tmp_path: Path
) -> None:
    """An issue-first provider is refused with a clear message, and no discussion is made;
    a discussing one gets only `HANGAR_LOCALRUN_SESSION_ID` (never the user's token) and its
    question, answer and plan are saved — its thinking and tool call are not."""
    seen: list[ChildCommand] = []
    runner = ScriptedPtyRunner(lambda command: seen.append(command) or 0)
    environ = {"PATH": os.environ["PATH"], "HANGAR_TOKEN": USER_TOKEN}
    stderr = io.StringIO()
    with running_hub() as hub:
        client = HubClient(hub.url, hub.token(hangar_home), timeout=10)
        api = HttpDiscussionApi(client)
        spools = (Spool(tmp_path / "turns"), Spool(tmp_path / "runs"))

        def discuss(cli: str):  # type: ignore[no-untyped-def]
            return discuss_local(
                DiscussOptions([cli], tmp_path),
                api,
                lambda _registry, _inbox, _started: runner,
                environ,
                spools,
                stderr,
                lambda _question: None,
                lambda _text: None,
            )

        with pytest.raises(UsageError) as refused:
            discuss(_cli(tmp_path, "issue-first-cli"))
        assert "cannot be used with `hangar discuss`" in str(refused.value)
        assert "hangar run ISSUE" in str(refused.value)
        assert client.get("/api/discussions")["discussions"] == [] and seen == []

        summary = discuss(_cli(tmp_path, "discussing-cli"))
        discussion = client.get(f"/api/discussions/{summary.discussion_id}")
        client.close()
    assert summary.exit_code == 0 and summary.issue_key is None
    assert [(t["role"], t["content"]) for t in discussion["turns"]] == [
        ("user", "how do we cache?"),
        ("assistant", "With a table."),
        ("plan", "# Cache\n\n1. A table.\n"),
    ]
    assert discussion["providerSessionId"] == "plugin-session-1"
    env = seen[0].env
    assert env["HANGAR_LOCALRUN_SESSION_ID"] == summary.discussion_id
    assert USER_TOKEN not in env.values()
    assert not any(key in env for key in ("HANGAR_RUN_ID", "HANGAR_ISSUE_ID", "HANGAR_TOKEN"))


def test_a_v2_plugin_on_pipes_hands_off_the_answer_to_a_new_issue(
    hangar_home: Path, tmp_path: Path
) -> None:
    """LR-148, LR-149, LR-067, LR-114: an installed v2 plugin on pipes, whose name is no
    executable (what is checked is its adapter), discusses: its question and answer are saved,
    its thinking is not. Its handoff_ready names the key of
    that thinking event, under which nothing was kept, so the card — asked line by line, there
    is no terminal — shows the current plan: the last answer. Created, the adapter is told only
    the issue's and run's ids and its next turn lands in the run."""
    thinking = {"type": "thinking", "source": "scripted", "source_key": "plan:1",
                "content": "private reasoning"}  # fmt: skip
    write_plugin(
        hangar_home / "localrun-providers" / "planner",
        "planner",
        steps=["turn:d1", f"emit:{json.dumps(thinking)}", "handoff:h1", "turn:after"],
        protocol="hangar-localrun-provider.v2",
        capabilities={"native_plan_handoff": True},
    )
    environ = {"PATH": os.environ["PATH"], "HANGAR_TOKEN": USER_TOKEN,
               "HANGAR_HOME": str(hangar_home)}  # fmt: skip
    questions: list[str] = []
    said: list[str] = []

    def ask(question: str) -> str:
        questions.append(question)
        assert len(questions) < 20, questions  # a question asked again and again
        return ""  # every default, then "y" by default: create

    with running_hub() as hub:
        client = HubClient(hub.url, hub.token(hangar_home), timeout=10)
        api = HttpDiscussionApi(client)
        summary = discuss_local(
            DiscussOptions(["planner"], tmp_path),
            api,
            lambda _registry, _inbox, _started: ScriptedPtyRunner(lambda _command: 0),
            environ,
            (Spool(tmp_path / "turns"), Spool(tmp_path / "runs")),
            io.StringIO(),
            ask,
            said.append,
        )
        discussion = client.get(f"/api/discussions/{summary.discussion_id}")
        issue = client.get(f"/api/issues/{summary.issue_key}")
        run_messages = client.get(f"/api/local-runs/{summary.run_id}/messages")["messages"]
        client.close()
    assert summary.exit_code == 0 and summary.issue_key == issue["key"]
    assert [(t["role"], t["content"]) for t in discussion["turns"]] == [
        ("user", "question d1"),
        ("assistant", "answer d1"),
    ]
    assert issue["description"] == "answer d1"
    assert issue["sourceDiscussionId"] == summary.discussion_id
    assert "  answer d1" in said  # the card's plan page, line by line
    assert questions[-1].startswith("Create the issue?")
    keys = [m["sourceKey"] for m in run_messages]
    assert keys == ["received:h1", "after:user", "after:final"]
    assert json.loads(run_messages[0]["content"]) == {
        "type": "handoff_decision",
        "handoff_id": "h1",
        "decision": "bound",
        "issue_id": issue["id"],
        "issue_key": issue["key"],
        "run_id": summary.run_id,
    }
