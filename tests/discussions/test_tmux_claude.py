"""`hangar discuss -- claude` in a real terminal (tmux) around the real Claude Code TUI, in the
sandbox: plan mode, Claude's own plan approval opening hangar's card, the run that goes on in
the same session, Ctrl+C on the card, and resuming the discussion afterwards."""

from __future__ import annotations

import json
import re

import pytest

from hangar.testing.scenarios import scenario_from_dict
from localrun.sandbox_hub import SandboxHub, wait_until

from .kit import (
    CLAUDE_APPROVE,
    CLAUDE_READY,
    PLAN,
    approve_claude_plan,
    claude_plan_turns,
    comments,
    exit_status,
    open_fields,
    say,
    start_tmux,
    the_discussion,
    to_create,
    turns_of,
)

pytestmark = pytest.mark.real_agents

ECHO = "❯\u00a0"
RESUME = r"resume it with `hangar discuss -- (claude --resume [0-9a-f-]{36})`"


def test_plan_mode_exit_plan_mode_card_issue_and_the_run_goes_on(sandbox_hub: SandboxHub) -> None:
    """LR-209..LR-212, LR-074, LR-085, LR-087..LR-090, LR-064: Claude starts in plan
    mode; approving its plan in its own dialog opens hangar's card (mode locked, no "Continue
    discussing"); creating makes the issue from the saved plan, with the discussion as its
    source; the same Claude session goes on, and the next turn lands in the new run's log and
    as issue comments."""
    hub = sandbox_hub
    turns = [*claude_plan_turns(), {"text": "Implementing now."}, {"text": "Second step done."}]
    term = start_tmux(hub, ["claude"], turns)
    try:
        term.wait_text(CLAUDE_READY, 90)
        say(term, "plan the cache", ECHO)
        term.wait_text(CLAUDE_APPROVE, 60)
        assert the_discussion(hub)["plan"]["content"] == PLAN  # proposed, saved before approval
        approve_claude_plan(term)  # Claude's own "Yes": its PostToolUse hook hands over
        screen = "\n".join(term.wait_text("1/2 the plan", 30))
        assert "# Cache the transcript index" in screen
        fields = open_fields(term)
        assert "continue in this CLI (set by the CLI's own action)" in fields
        assert "Continue discussing" not in fields
        to_create(term)
        term.key("Enter")
        term.wait_text("Issue HGR-1 created", 30)
        discussion = the_discussion(hub)
        issue = hub.ok("GET", "/api/issues/HGR-1")
        assert issue["description"] == PLAN
        assert issue["sourceDiscussionId"] == discussion["id"]
        assert discussion["status"] == "issue_created"
        assert discussion["executionMode"] == "continue_in_cli"
        run_id = discussion["runId"]
        assert hub.runs("HGR-1")[0]["id"] == run_id
        # The same session goes on: its next reply is the run's, not the discussion's.
        wait_until(
            lambda: any(m["content"] == "Implementing now." for m in hub.messages(run_id)),
            60,
            "the implementing turn in the run's log",
        )
        term.wait_text("Implementing now.")
        # The heartbeat moved to the run: the discussion is no longer held by this terminal.
        assert the_discussion(hub)["inUse"] is False
        say(term, "next step", ECHO)
        wait_until(
            lambda: (
                "next step" in comments(hub, "HGR-1")
                and any(c.endswith("Second step done.") for c in comments(hub, "HGR-1"))
            ),
            90,
            "the next turn as issue comments",
        )
        kinds = [(m["type"], m["content"]) for m in hub.messages(run_id)]
        assert ("user_input", "next step") in kinds
        assert ("final", "Second step done.") in kinds
        # The discussion itself kept only what came before the binding.
        assert turns_of(hub, discussion["id"]) == [("user", "plan the cache"), ("plan", PLAN)]
        # Nothing of the issue ever reached Claude: no context, no issue text (LR-066, LR-215).
        sent = json.dumps([r.get("body") for r in hub.sandbox.requests()])
        assert "HGR-1" not in sent and "hangar issue" not in sent
        term.key("C-c")
        term.wait_text("again to exit", 30)
        term.key("C-c")
        term.wait_text("hangar: discussion became HGR-1", 60)
        run = wait_until(
            lambda: hub.runs("HGR-1")[0]["status"] != "running" and hub.runs("HGR-1")[0],
            30,
            "the run's final status",
        )
        assert (run["status"], run["exitCode"]) == ("completed", 0)
        # Usage after the binding is the run's (the discussion keeps none).
        usage = hub.ok("GET", f"/api/local-runs/{run_id}")["usage"]
        assert usage and usage[0]["provider"] == "claude" and usage[0]["outputTokens"] > 0
    finally:
        term.close()


def test_ctrl_c_on_the_native_card_ends_claude_and_the_discussion_resumes_with_its_plan(
    sandbox_hub: SandboxHub,
) -> None:
    """LR-086, LR-098 (reading A), LR-213, LR-228, LR-118..LR-120, LR-083, LR-092: Ctrl+C on
    the card Claude's approval opened blocks the action and ends Claude (exit 0, no issue, no
    run, nothing implemented); the discussion is kept. `hangar discuss -- claude --resume SID`
    resumes the same discussion with its saved plan, so `/hangarcreateissue` goes straight
    to the card; "only create" makes the issue and ends Claude."""
    hub = sandbox_hub
    term = start_tmux(hub, ["claude"], [*claude_plan_turns(), {"text": "Implementing now."}])
    try:
        term.wait_text(CLAUDE_READY, 90)
        say(term, "plan the cache", ECHO)
        approve_claude_plan(term)
        term.wait_text("1/2 the plan", 30)
        term.key("C-c")
        lines = term.wait_for(lambda _: term.dead(), "hangar discuss to end", 60)
        text = "".join(lines)  # the summary may wrap at the pane's width
        match = re.search(RESUME, text)
        assert match, text
        assert exit_status(term) == 0
    finally:
        term.close()
    first = the_discussion(hub)
    assert first["status"] == "open" and first["issueKey"] is None and first["runId"] is None
    assert first["plan"]["content"] == PLAN
    assert hub.ok("GET", "/api/issues")["issues"] == []
    assert all(content != "Implementing now." for _, content in turns_of(hub, first["id"]))

    hub.sandbox.load(scenario_from_dict({"name": "resumed", "turns": [{"text": "Back."}]}))
    resumed = start_tmux(hub, match.group(1).split(), name="tmux-resumed")
    try:
        resumed.wait_text("plan mode on", 90)
        say(resumed, "/hangarcreateissue", ECHO)
        screen = "\n".join(resumed.wait_text("1/2 the plan", 30))
        assert "# Cache the transcript index" in screen
        assert "Continue discussing" in open_fields(resumed)  # the plain command's card
        resumed.key("Right", "Right")  # continue in this CLI → hand to an agent → only create
        resumed.wait_text("only create the issue")
        to_create(resumed)
        resumed.key("Enter")
        lines = resumed.wait_for(lambda _: resumed.dead(), "Claude to be ended", 60)
        assert any("【Cache the transcript index】Issue HGR-1 created" in line for line in lines)
    finally:
        resumed.close()
    again = the_discussion(hub)
    assert again["id"] == first["id"]  # the same discussion (LR-119)
    assert again["status"] == "issue_created" and again["executionMode"] == "create_only"
    assert again["runId"] is None and hub.runs("HGR-1") == []
    assert hub.ok("GET", "/api/issues/HGR-1")["description"] == PLAN
