"""`hangar discuss -- PLUGIN` with the sample plugins, in a real terminal (tmux) in the sandbox:
Hermes Agent (protocol v2) discusses, its `/implement` (the adapter's ``handoff_ready``) opens
hangar's card over the answer the handoff names, and the same Hermes session goes on in the new
run; Ctrl+C on that card cancels the handoff and the adapter ends Hermes; Grok CLI (protocol
v1, issue-first only) is refused before anything starts."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hangar.testing.plugin_clis import SAMPLES, hermes_config, missing_plugin_clis, plugin_cli
from localrun.sandbox_hub import USER_TOKEN, SandboxHub, in_dir, wait_until
from terminal.tmux_term import TmuxTerminal

from .kit import exit_status, open_fields, start_tmux, the_discussion, to_create, turns_of

pytestmark = pytest.mark.real_agents

PROMPT = "hermes> "
PLAN = "Plan: 1. Write marker.txt. 2. Check it."


@pytest.fixture
def hub(sandbox_hub: SandboxHub) -> Iterator[SandboxHub]:
    """The sandbox hub with the sample plugins installed for the user and Hermes configured
    for the fake model."""
    missing = missing_plugin_clis()
    if missing:
        pytest.skip(f"sample plugin CLIs {missing} not installed (make agents)")
    for sample in ("hermes", "grok"):
        argv = [sys.executable, "-m", "hangar", "local-run", "provider", "install",
                str(SAMPLES / sample)]  # fmt: skip
        done = sandbox_hub.sandbox.run(in_dir(sandbox_hub.work, argv), cwd="/",
                                       env=user_env(sandbox_hub))  # fmt: skip
        assert done.returncode == 0, done.stderr
    hermes_home = sandbox_hub.home / ".hermes"
    hermes_home.mkdir(parents=True, exist_ok=True)
    (hermes_home / "config.yaml").write_text(hermes_config(sandbox_hub.sandbox.base_url))
    yield sandbox_hub


def user_env(hub: SandboxHub) -> dict[str, str]:
    """The user's environment: their token and hub, and the plugins' CLIs on PATH."""
    folders = sorted({str(plugin_cli(name).parent) for name in ("grok", "hermes")})
    return {
        "PATH": ":".join([*folders, str(Path(sys.executable).parent), "/usr/bin", "/bin"]),
        "HOME": str(hub.home),
        "TERM": "xterm-256color",
        "HANGAR_HOME": str(hub.client_home),
        "HANGAR_SERVER_URL": hub.url,
        "HANGAR_TOKEN": USER_TOKEN,
        "HANGAR_RUN_ID": "stale-run",  # from a shell inside another run: never passed on
    }


def at_prompt(term: TmuxTerminal, timeout: float = 120.0) -> None:
    """Wait until Hermes's last prompt line is empty: it waits for the next line (tmux drops
    the prompt's trailing space; hangar's notice may stand below it)."""

    def prompting(lines: list[str]) -> bool:
        prompts = [line for line in lines if line.startswith(PROMPT.rstrip())]
        return bool(prompts) and prompts[-1] == PROMPT.rstrip()

    term.wait_for(prompting, "the Hermes prompt", timeout)


def _child_env(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def test_a_v2_plugin_discusses_and_its_handoff_opens_the_card(hub: SandboxHub) -> None:
    """LR-146, LR-148, LR-149, LR-072, LR-073, LR-085: Hermes runs with only
    HANGAR_LOCALRUN_SESSION_ID = the discussion id (no run, issue or token); the discussion
    keeps the question and the answer (not Hermes's tool call); `/implement` opens the card
    over the answer the handoff names, "continue in this CLI" locked; the issue is made from
    it with the discussion as its source; the adapter is told only the ids, and what Hermes
    does next lands in the run's log; the run ends with Hermes."""
    turns = [
        {"shell": "env | sort > adapter-env.txt"},
        {"text": PLAN},
        {"shell": "echo planned > marker.txt"},
        {"text": "Implemented the plan."},
    ]
    term = start_tmux(hub, ["hermes"], turns, env=user_env(hub))
    try:
        at_prompt(term)
        discussion = the_discussion(hub)
        term.type("Plan the marker file")
        term.wait_text(f"{PROMPT}Plan the marker file")
        term.key("Enter")
        wait_until(
            lambda: ("assistant", PLAN) in turns_of(hub, discussion["id"]),
            120,
            "the answer on the hub",
            detail=lambda: turns_of(hub, discussion["id"]),
        )
        env = _child_env(hub.work / "adapter-env.txt")
        assert env["HANGAR_LOCALRUN_SESSION_ID"] == discussion["id"]
        assert env["HANGAR_LOCALRUN_MODE"] == "discussion"
        for name in ("HANGAR_RUN_ID", "HANGAR_ISSUE_ID", "HANGAR_TOKEN", "HANGAR_SERVER_URL"):
            assert name not in env, name
        assert USER_TOKEN not in (hub.work / "adapter-env.txt").read_text(encoding="utf-8")
        term.type("/implement")
        term.wait_text(f"{PROMPT}/implement")
        term.key("Enter")
        screen = "\n".join(term.wait_text("1/2 the plan", 60))
        assert PLAN in screen
        fields = open_fields(term)
        assert "continue in this CLI (set by the CLI's own action)" in fields
        assert "Continue discussing" not in fields
        to_create(term)
        term.key("Enter")
        term.wait_text("Issue HGR-1 created", 30)
        issue = hub.ok("GET", "/api/issues/HGR-1")
        assert issue["description"] == PLAN
        assert issue["sourceDiscussionId"] == discussion["id"]
        run_id = the_discussion(hub)["runId"]
        assert hub.runs("HGR-1")[0]["id"] == run_id
        term.wait_text(f"Bound to HGR-1 (run {run_id}); implementing.", 60)
        wait_until(
            lambda: (
                [(m["type"], m.get("tool")) for m in hub.messages(run_id)]
                == [("tool_use", "terminal"), ("tool_result", "terminal"), ("text", None)]
            ),
            120,
            "Hermes's implementing turn in the run's log",
            detail=lambda: hub.messages(run_id),
        )
        assert (hub.work / "marker.txt").read_text(encoding="utf-8") == "planned\n"
        # the discussion kept only the question and the answer (no tool call or result)
        assert turns_of(hub, discussion["id"]) == [
            ("user", "Plan the marker file"),
            ("assistant", PLAN),
        ]
        # the handoff re-sent nothing to the model: no ids, the plan only as its own reply
        implementing = json.dumps([r["body"] for r in hub.sandbox.requests()
                                   if r["kind"] == "turn"][-2])  # fmt: skip
        assert "HGR-1" not in implementing and run_id not in implementing
        assert implementing.count("Write marker.txt") == 1
        at_prompt(term)
        term.type("/exit")
        term.wait_text(f"{PROMPT}/exit")
        term.key("Enter")
        term.wait_text("hangar: discussion became HGR-1; its local run ended (exit 0)", 60)
        assert exit_status(term) == 0
    finally:
        term.close()
    run = hub.runs("HGR-1")[0]
    assert (run["status"], run["exitCode"], run["cliName"]) == ("completed", 0, "hermes")


def test_ctrl_c_on_the_card_cancels_the_handoff_and_the_discussion_is_kept(
    hub: SandboxHub,
) -> None:
    """LR-086: Ctrl+C on the card a plugin's handoff opened answers it "cancelled";
    the adapter ends Hermes, nothing is implemented, no issue or run exists and the
    discussion stays open with its question and answer."""
    turns = [{"text": PLAN}, {"shell": "echo planned > marker.txt"}]
    term = start_tmux(hub, ["hermes"], turns, env=user_env(hub))
    try:
        at_prompt(term)
        term.type("Plan the marker file")
        term.wait_text(f"{PROMPT}Plan the marker file")
        term.key("Enter")
        term.wait_text(PLAN, 120)
        at_prompt(term)
        term.type("/implement")
        term.wait_text(f"{PROMPT}/implement")
        term.key("Enter")
        term.wait_text("1/2 the plan", 60)
        term.key("C-c")
        term.wait_text("The handoff was cancelled; ending the Hermes session.", 30)
        term.wait_text("hangar: discussion", 60)
        assert exit_status(term) == 0
    finally:
        term.close()
    discussion = the_discussion(hub)
    assert discussion["status"] == "open" and discussion["issueKey"] is None
    assert turns_of(hub, discussion["id"]) == [
        ("user", "Plan the marker file"),
        ("assistant", PLAN),
    ]
    assert hub.ok("GET", "/api/issues")["issues"] == []
    assert not (hub.work / "marker.txt").exists()


def test_a_v1_plugin_is_refused_before_anything_starts(hub: SandboxHub) -> None:
    """LR-143, LR-144: `hangar discuss -- grok` (an issue-first plugin) says why and what to
    use instead; no discussion is made and Grok never runs."""
    argv = [sys.executable, "-m", "hangar", "discuss", "--", "grok", "Plan the marker file"]
    done = hub.sandbox.run(in_dir(hub.work, argv), cwd="/", env=user_env(hub), timeout=60)
    assert done.returncode != 0
    error = done.stderr.decode()
    assert "`grok` cannot be used with `hangar discuss`" in error
    assert "hangar-localrun-provider.v1, which is issue-first only" in error
    assert "use `hangar run ISSUE -- grok`" in error
    assert hub.ok("GET", "/api/discussions")["discussions"] == []
    assert hub.sandbox.requests() == []  # Grok never asked the model
