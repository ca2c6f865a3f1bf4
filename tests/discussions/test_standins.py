"""Cursor agent, Kiro CLI and Antigravity CLI discussions, against scripted stand-ins.

These three CLIs are not published to a package registry, so their providers
are tested against stand-ins (``standins/``) that write the same session formats as the public
fixtures of each CLI, in a real terminal (tmux) in the sandbox, with a real hub. What is
tested is hangar's side: the plan mode each is started in, the plan and the implement action
found in the session file (never on the screen), the CLI paused during the card and the
binding and resumed after, Ctrl+C ending it, resuming, and a CLI without resume."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from localrun.sandbox_hub import USER_TOKEN, SandboxHub, in_dir, wait_until
from terminal.tmux_term import TmuxTerminal

from .kit import (
    discuss_argv,
    exit_status,
    open_fields,
    recording_exit,
    the_discussion,
    to_create,
    turns_of,
)

pytestmark = pytest.mark.real_agents

STANDINS = Path(__file__).with_name("standins")
PLAN = "# Cache the index\n\n1. Persist the turn table.\n2. Read it back.\n"
THOUGHT = "Thinking-marker: look at the files."
REPLIES = [
    {
        "text": "We can keep a turn table.",
        "think": THOUGHT,
        "tool": {"name": "Shell", "args": {"command": "ls"}, "result": "tool-output-marker"},
    },
    {"plan": PLAN},
]
CLIS = {"cursor": ["cursor-agent"], "kiro": ["kiro-cli", "chat"], "agy": ["agy"]}


def start(
    hub: SandboxHub, cli_args: list[str], replies: list[dict[str, Any]], name: str
) -> TmuxTerminal:
    (hub.root / f"{name}.json").write_text(json.dumps(replies), encoding="utf-8")
    env = {
        "PATH": f"{STANDINS}:{Path(sys.executable).parent}:{os.environ['PATH']}",
        "HOME": str(hub.home),
        "XDG_DATA_HOME": str(hub.home / ".local" / "share"),
        "HANGAR_HOME": str(hub.client_home),
        "HANGAR_SERVER_URL": hub.url,
        "HANGAR_TOKEN": USER_TOKEN,
        "STANDIN_REPLIES": str(hub.root / f"{name}.json"),
        "STANDIN_LOG": str(hub.root / "standin.log"),
    }
    argv = recording_exit(hub.root / name, in_dir(hub.work, discuss_argv(cli_args)))
    return TmuxTerminal(hub.root / name, argv, env, rows=30, columns=100, sandbox=hub.sandbox)


def standin_log(hub: SandboxHub) -> list[dict[str, Any]]:
    path = hub.root / "standin.log"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [json.loads(line) for line in lines]


def cli_pid(hub: SandboxHub) -> int:
    return int([e for e in standin_log(hub) if "pid" in e][-1]["pid"])


def stopped(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    return "State:\tT" in status


def enter(term: TmuxTerminal, text: str) -> None:
    term.type(text)
    term.wait_text(text)
    term.key("Enter")


@pytest.mark.parametrize("cli", sorted(CLIS))
def test_plan_mode_implement_action_card_and_the_same_process_goes_on(
    sandbox_hub: SandboxHub, cli: str
) -> None:
    """LR-221..LR-227, LR-072, LR-073: each CLI starts in its plan mode
    (`--mode=plan`, or Kiro's `/plan` typed after the start); its plan and its implement action
    are read from its session file; the CLI is stopped while the card is up and continued
    after the binding; the same process then implements, into the run."""
    hub = sandbox_hub
    term = start(hub, CLIS[cli], REPLIES, cli)
    try:
        term.wait_text("[plan] >", 60)
        log = standin_log(hub)
        if cli == "kiro":
            assert [e["line"] for e in log if "line" in e][:1] == ["/plan"]  # typed by hangar
        else:
            assert "--mode=plan" in [e for e in log if "argv" in e][-1]["argv"]
        enter(term, "how should we cache")
        term.wait_text("We can keep a turn table.")
        enter(term, "plan it")
        term.wait_text("Implement this plan?")
        enter(term, "y")
        term.wait_text("1/2 the plan", 30)
        pid = cli_pid(hub)
        assert stopped(pid)  # held during the card (LR-226)
        open_fields(term)
        to_create(term)
        assert stopped(pid)
        term.key("Enter")
        term.wait_text("Issue HGR-1 created", 30)
        term.wait_text("Implementing the plan.", 30)
        assert not stopped(pid)  # the same process goes on (LR-227)
        discussion = the_discussion(hub)
        run_id = discussion["runId"]
        wait_until(
            lambda: (
                ("final", "Implementing the plan.")
                in [(m["type"], m["content"]) for m in hub.messages(run_id)]
            ),
            30,
            "the implementing answer in the run",
        )
        assert hub.ok("GET", "/api/issues/HGR-1")["description"] == PLAN
        assert turns_of(hub, discussion["id"]) == [
            ("user", "how should we cache"),
            ("assistant", "We can keep a turn table."),
            ("user", "plan it"),
            ("plan", PLAN),
        ]
        assert "marker" not in str(hub.ok("GET", f"/api/discussions/{discussion['id']}"))
        term.key("C-d")
        lines = term.wait_for(lambda _: term.dead(), "the CLI to end", 30)
        assert any("discussion became HGR-1" in line for line in lines)
    finally:
        term.close()


def test_ctrl_c_on_the_card_ends_the_paused_cli_and_the_discussion_resumes(
    sandbox_hub: SandboxHub,
) -> None:
    """LR-086, LR-228, LR-119, LR-120 (Kiro): Ctrl+C on the card ends the paused CLI (exit 0,
    nothing implemented); `kiro-cli chat --resume` resumes the same discussion with its plan,
    and `/hangarcreateissue` (the menu on the main screen) creates the issue from it."""
    hub = sandbox_hub
    term = start(hub, ["kiro-cli", "chat"], [{"plan": PLAN}], "first")
    try:
        term.wait_text("[plan] >", 60)
        enter(term, "plan it")
        term.wait_text("Implement this plan?")
        enter(term, "y")
        term.wait_text("1/2 the plan", 30)
        term.key("C-c")
        text = "".join(term.wait_for(lambda _: term.dead(), "the CLI to be ended", 30))
        assert "resume it with `hangar discuss -- kiro-cli chat --resume`" in text
        assert exit_status(term) == 0
    finally:
        term.close()
    first = the_discussion(hub)
    assert first["status"] == "open" and first["plan"]["content"] == PLAN
    assert all("Implementing" not in content for _, content in turns_of(hub, first["id"]))
    again = start(hub, ["kiro-cli", "chat", "--resume"], [{"text": "Back."}], "again")
    try:
        again.wait_text("[plan] >", 60)
        again.type("/hangar")
        again.wait_text("↑/↓ select · Enter run")
        again.key("Enter")
        again.wait_text("# Cache the index", 30)
        open_fields(again)
        again.key("Right", "Right")
        to_create(again)
        again.key("Enter")
        again.wait_for(lambda _: again.dead(), "the CLI to be ended after creating", 30)
    finally:
        again.close()
    resumed = the_discussion(hub)
    assert resumed["id"] == first["id"] and resumed["issueKey"] == "HGR-1"
    assert hub.ok("GET", "/api/issues/HGR-1")["description"] == PLAN


def test_a_cli_without_resume_says_so(sandbox_hub: SandboxHub) -> None:
    """Bad input, a provider without resume (Antigravity: hangar knows no resume flag of it):
    the discussion is kept, and the summary says it cannot go on from the CLI."""
    hub = sandbox_hub
    term = start(hub, ["agy"], [{"text": "Hello."}], "agy")
    try:
        term.wait_text("[plan] >", 60)
        enter(term, "hello")
        term.wait_text("Hello.")
        wait_until(lambda: len(turns_of(hub, the_discussion(hub)["id"])) == 2, 30, "the turns")
        term.key("C-d")
        text = "".join(term.wait_for(lambda _: term.dead(), "the CLI to end", 30))
    finally:
        term.close()
    assert "agy cannot resume its session, so it cannot go on from here" in text
    assert the_discussion(hub)["status"] == "open"
