"""Bad input around a discussion, with the real CLIs in the sandbox: a hub that cannot be reached
at start or goes away in the middle, two terminals resuming one discussion, an empty plan, a
plan longer than the terminal, and a creation that fails."""

from __future__ import annotations

import re

import pytest

from localrun.sandbox_hub import SandboxHub, in_dir, type_line, wait_screen, wait_until

from .kit import (
    CLAUDE_READY,
    CODEX_READY,
    approve_claude_plan,
    ask_codex,
    claude_plan_turns,
    client_env,
    discuss_argv,
    open_fields,
    say,
    start_codex,
    start_pty,
    start_tmux,
    the_discussion,
    to_create,
    turns_of,
    type_like_a_person,
)

pytestmark = pytest.mark.real_agents


def test_hub_unreachable_at_start_starts_nothing(pty_hub: SandboxHub) -> None:
    """Bad input: no hub at start is a clear error (exit 1) and the CLI is never started."""
    hub = pty_hub
    env = {**client_env(hub, "claude"), "HANGAR_SERVER_URL": "http://127.0.0.1:9"}
    done = hub.sandbox.run(in_dir(hub.work, discuss_argv(["claude"])), cwd="/", env=env)
    assert done.returncode == 1
    assert b"cannot reach the hub at http://127.0.0.1:9" in done.stderr
    assert hub.sandbox.requests() == []  # Claude never asked the model anything
    assert not (hub.home / ".claude" / "projects").exists()


def test_hub_away_mid_discussion_turns_are_spooled_and_sent_once(pty_hub: SandboxHub) -> None:
    """Bad input: while the hub is away the turns are spooled on disk; once it is back they
    are sent, and stored once each (like run messages)."""
    hub = pty_hub
    term = start_pty(hub, ["codex"], [{"text": "First answer."}, {"text": "Second answer."}])
    try:
        wait_screen(term, CODEX_READY, 90)
        discussion = the_discussion(hub)
        hub.stop_hub()
        type_line(term, "first question", r"first\s*question")
        spool = hub.client_home / "discussion-spool"
        wait_until(lambda: len(list(spool.rglob("*.json"))) >= 2, 60, "the two turns in the spool")
        hub.start_hub()
        expected = [("user", "first question"), ("assistant", "First answer.")]
        wait_until(
            lambda: turns_of(hub, discussion["id"]) == expected,
            60,
            "the spooled turns on the hub",
            detail=lambda: turns_of(hub, discussion["id"]),
        )
        type_line(term, "second question", r"second\s*question")
        wait_until(lambda: len(turns_of(hub, discussion["id"])) == 4, 60, "the next turns, posted")
        term.send("\x03")
        term.send("\x03")
        wait_screen(term, r"kept \(4 turns saved\)", 60)
        assert term.process.wait(30) == 0
    finally:
        term.close()
    assert turns_of(hub, discussion["id"]) == [
        *expected,
        ("user", "second question"),
        ("assistant", "Second answer."),
    ]
    assert list((hub.client_home / "discussion-spool").rglob("*.json")) == []


def test_a_second_terminal_is_told_the_discussion_is_in_use(pty_hub: SandboxHub) -> None:
    """Bad input: resuming a discussion another terminal holds is refused before anything
    starts; the first terminal goes on."""
    hub = pty_hub
    first = start_pty(hub, ["claude"], [{"text": "Still here."}])
    try:
        wait_screen(first, CLAUDE_READY, 90)
        discussion = wait_until(
            lambda: the_discussion(hub)["providerSessionId"] and the_discussion(hub),
            30,
            "the Claude session id on the hub",
        )
        requests = len(hub.sandbox.requests())
        argv = discuss_argv(["claude", "--resume", discussion["providerSessionId"]])
        second = hub.sandbox.run(in_dir(hub.work, argv), cwd="/", env=client_env(hub, "claude"))
        assert second.returncode == 2
        assert b"is in use in another terminal" in second.stderr
        assert len(hub.sandbox.requests()) == requests  # no second Claude was started
        type_line(first, "are you there", r"are\s*you\s*there")
        wait_until(
            lambda: ("assistant", "Still here.") in turns_of(hub, discussion["id"]),
            60,
            "the first terminal's next answer",
        )
        first.send("\x03")
        first.send("\x03")
        wait_screen(first, r"kept \(2 turns saved\)", 60)
    finally:
        first.close()


def test_empty_plan_the_card_says_there_is_nothing_to_create(sandbox_hub: SandboxHub) -> None:
    """Bad input: `/hangarcreateissue` before anything was discussed: the card says there is
    nothing to create and Enter goes back to the discussion."""
    hub = sandbox_hub
    term = start_tmux(hub, ["codex"], [{"text": "Hello."}])
    try:
        term.wait_text(CODEX_READY, 90)
        type_like_a_person(term, "/hangar")
        term.wait_text("↑/↓ select · Enter run")
        term.key("Enter")
        term.wait_text("nothing to create an issue from", 30)
        term.wait_text("> Continue discussing")
        term.key("Enter")
        term.wait_gone("nothing to create")
        term.wait_text(CODEX_READY)
    finally:
        term.close()
    assert hub.ok("GET", "/api/issues")["issues"] == []
    assert the_discussion(hub)["status"] == "open"


def test_a_plan_longer_than_the_terminal_scrolls_to_its_end(sandbox_hub: SandboxHub) -> None:
    """Bad input: a 60-line plan in a 24-row terminal: the card shows a page of it, scrolls to
    its last line, and the issue gets all of it."""
    hub = sandbox_hub
    plan = "# A long plan\n\n" + "".join(f"{n}. Step number {n}.\n" for n in range(1, 59))
    term = start_tmux(hub, ["claude"], claude_plan_turns(plan), rows=24, columns=90)
    try:
        term.wait_text(CLAUDE_READY, 90)
        say(term, "plan it all", "❯\u00a0")
        approve_claude_plan(term)
        lines = term.wait_text("1/2 the plan", 30)
        header = next(line for line in lines if "1/2 the plan" in line)
        shown = re.search(r"lines 1–(\d+) of (\d+)", header)
        assert shown and int(shown.group(1)) < int(shown.group(2)), header
        assert not any("Step number 58." in line for line in lines)
        term.key("End")
        lines = term.wait_text("58. Step number 58.")
        assert any(f"of {shown.group(2)})" in line for line in lines)
        open_fields(term)
        to_create(term)
        term.key("Enter")
        term.wait_text("Issue HGR-1 created", 30)
    finally:
        term.close()
    assert hub.ok("GET", "/api/issues/HGR-1")["description"] == plan


def test_creating_fails_while_the_hub_is_away_then_retry(sandbox_hub: SandboxHub) -> None:
    """LR-093, LR-094, LR-115: creating fails while the hub is away: the failure page
    keeps every field and offers retry, back to edit and continue discussing; once the hub is
    back, Retry creates the issue."""
    hub = sandbox_hub
    term = start_codex(hub, [{"text": "Plan: cache."}])
    try:
        ask_codex(term, "what now")
        term.wait_text("Plan: cache.", 60)
        type_like_a_person(term, "/hangar")
        term.wait_text("↑/↓ select · Enter run")
        term.key("Enter")
        term.wait_text("1/2 the plan", 30)
        open_fields(term)
        term.key("Down")
        term.type(" now")  # an edited title must survive the failure
        term.wait_text("Title          Plan: cache. now")
        hub.stop_hub()
        term.key("Down", "Down", "Down", "Down", "Down")
        term.wait_text("> [ Create issue ]")
        term.key("Enter")
        page = "\n".join(term.wait_text("not created", 30))
        for choice in ("Retry", "Back to edit", "Continue discussing"):
            assert choice in page
        assert "Every field is kept." in page
        hub.start_hub()
        term.key("Enter")  # Retry
        term.wait_text("【Plan: cache. now】Issue HGR-1 created", 30)
    finally:
        term.close()
    assert hub.ok("GET", "/api/issues/HGR-1")["title"] == "Plan: cache. now"
