"""`hangar discuss -- codex` in a real terminal (tmux) around the real Codex TUI, in the
sandbox: `/hangarcreateissue` and the card's execution choices, Ctrl+C back to the talk, and
Codex's own plan mode with its "implement" actions held for hangar's card."""

from __future__ import annotations

import json
import re

import pytest

from localrun.sandbox_hub import SandboxHub, wait_until

from .kit import (
    CODEX_READY,
    PLAN,
    ask_codex,
    comments,
    exit_status,
    open_fields,
    start_codex,
    start_tmux,
    the_discussion,
    to_create,
    turns_of,
    type_like_a_person,
)

pytestmark = pytest.mark.real_agents

ANSWER = "Cache the turn table by file signature, then read it back after a restart."
MENU_HELP = "↑/↓ select · Enter run"


def open_card(term) -> str:  # type: ignore[no-untyped-def]
    """`/hangar` (the menu opens), Enter runs `/hangarcreateissue`: the card's plan page."""
    type_like_a_person(term, "/hangar")
    term.wait_text(MENU_HELP)
    term.key("Enter")
    return "\n".join(term.wait_text("1/2 the plan", 30))


def ended(term) -> str:  # type: ignore[no-untyped-def]
    lines = term.wait_for(lambda _: term.dead(), "hangar discuss to end", 60)
    assert exit_status(term) == 0
    return "".join(lines)  # joined: lines may wrap at the pane's width


def test_hangarcreateissue_ctrl_c_back_then_only_create(sandbox_hub: SandboxHub) -> None:
    """LR-006, LR-008, LR-009, LR-083, LR-084, LR-092, LR-072: with no plan mode the
    card's plan is Codex's last answer; Ctrl+C on the card goes back to the discussion; "only
    create" makes the issue from that answer and ends Codex, the notice printed after it."""
    hub = sandbox_hub
    term = start_codex(hub, [{"text": ANSWER}])
    try:
        assert the_discussion(hub)["issueKey"] is None  # no issue and no run yet (LR-008)
        assert hub.ok("GET", "/api/issues")["issues"] == []
        ask_codex(term, "how should we cache?")
        term.wait_text("read it back after a restart")
        assert "Cache the turn table" in open_card(term)
        term.key("C-c")  # back to the discussion: Codex is still there
        term.wait_gone("1/2 the plan")
        term.wait_text(CODEX_READY)
        assert the_discussion(hub)["status"] == "open"
        open_card(term)
        assert "Continue discussing" in open_fields(term)
        term.key("Right", "Right")
        term.wait_text("only create the issue")
        to_create(term)
        term.key("Enter")
        text = ended(term)
    finally:
        term.close()
    assert "【Cache the turn table by file signature, then read it back after a restart.】" in text
    assert "discussion became HGR-1 (only create the issue)" in text
    discussion = the_discussion(hub)
    assert (discussion["status"], discussion["executionMode"]) == ("issue_created", "create_only")
    assert discussion["runId"] is None and hub.runs("HGR-1") == []
    assert hub.ok("GET", "/api/issues/HGR-1")["description"] == ANSWER
    assert turns_of(hub, discussion["id"]) == [
        ("user", "how should we cache?"),
        ("assistant", ANSWER),
    ]


def test_hand_to_an_agent_needs_an_agent_member(sandbox_hub: SandboxHub) -> None:
    """LR-091, LR-080, LR-093: "hand to an agent" asks for an agent member; with one
    picked (filtered as typed) the issue is assigned to it and Codex ends — the run will start
    wherever that agent picks the issue up. The most recent project is the initial project."""
    hub = sandbox_hub
    agent = hub.ok("POST", "/api/members", {"name": "Review bot", "role": "agent"})
    project = hub.ok("POST", "/api/projects", {"name": "Web app"})
    hub.ok("POST", "/api/issues", {"title": "Earlier", "projectId": project["id"]})
    term = start_codex(hub, [{"text": ANSWER}])
    try:
        ask_codex(term, "how should we cache?")
        term.wait_text("read it back after a restart")
        open_card(term)
        assert "Project        Web app" in open_fields(term)  # an editable initial value
        term.key("Right")
        term.wait_text("hand to an agent")
        to_create(term)
        term.key("Enter")  # no agent yet: the card says so and keeps everything
        term.wait_text("pick the agent member to hand the issue to")
        term.wait_text("> Assignee")
        term.type("rev")
        term.wait_text("> Review bot")
        term.key("Enter")
        term.wait_text("Assignee       Review bot")
        term.key("Down", "Down", "Down")
        term.wait_text("> [ Create issue ]")
        term.key("Enter")
        text = ended(term)
    finally:
        term.close()
    assert "discussion became HGR-2 (hand to an agent)" in text
    issue = hub.ok("GET", "/api/issues/HGR-2")
    assert (issue["assigneeId"], issue["projectId"]) == (agent["id"], project["id"])
    discussion = the_discussion(hub)
    assert discussion["executionMode"] == "agent" and discussion["runId"] is None


@pytest.mark.parametrize("choice", ["implement", "clear context and implement"])
def test_codex_plan_mode_implement_action_opens_the_card_and_goes_on(
    sandbox_hub: SandboxHub, choice: str
) -> None:
    """LR-010, LR-074, LR-085, LR-226, LR-227, LR-230, LR-090: in Codex's plan mode
    its `<proposed_plan>` is saved as the plan; its own "Yes, implement this plan" (or "clear
    context and implement") is held while hangar's card creates the issue from that plan and
    binds the run; then Codex implements, in the run's log and as issue comments."""
    hub = sandbox_hub
    proposal = f"Here is the plan.\n\n<proposed_plan>\n{PLAN}</proposed_plan>\n"
    term = start_codex(hub, [{"text": proposal}, {"text": "Implementing now."}])
    try:
        type_like_a_person(term, "/plan")
        term.wait_text("› /plan")  # the last key too: Enter before it lands runs /pla… and
        term.wait_text("switch to Plan mode")  # leaves an "n" in the input
        term.key("Enter")
        term.wait_text("Plan mode")
        ask_codex(term, "plan the cache")
        term.wait_text("Implement this plan?", 60)
        assert the_discussion(hub)["plan"]["content"] == PLAN
        if choice != "implement":
            term.key("Down")
            term.wait_text("› 2. Yes, clear context")
        term.key("Enter")
        screen = "\n".join(term.wait_text("1/2 the plan", 30))
        assert "# Cache the transcript index" in screen
        fields = open_fields(term)
        assert "Continue discussing" not in fields
        to_create(term)
        assert all("Implementing now." not in line for line in term.lines())  # Codex waits
        term.key("Enter")
        term.wait_text("Issue HGR-1 created", 30)
        term.wait_text("Implementing now.", 60)
        discussion = the_discussion(hub)
        run_id = discussion["runId"]
        wait_until(
            lambda: any(m["content"] == "Implementing now." for m in hub.messages(run_id)),
            30,
            "the implementing turn in the run",
        )
        wait_until(
            lambda: any(c.endswith("Implementing now.") for c in comments(hub, "HGR-1")),
            60,
            "the implementing turn as an issue comment",
        )
        assert hub.ok("GET", "/api/issues/HGR-1")["description"] == PLAN
        sent = json.dumps([r.get("body") for r in hub.sandbox.requests()])
        assert "HGR-1" not in sent and "hangar issue" not in sent  # nothing injected (LR-230)
        roles = [role for role, _ in turns_of(hub, discussion["id"])]
        assert sorted(roles) == ["assistant", "plan", "user"]
    finally:
        term.close()


def test_codex_resume_after_exit_is_the_same_discussion_with_its_plan(
    sandbox_hub: SandboxHub,
) -> None:
    """LR-118, LR-119, LR-120: Codex exits with the discussion unfinished; the summary names
    `hangar discuss -- codex resume THREAD`; running it resumes the same discussion, and
    `/hangarcreateissue` offers the answer saved before."""
    hub = sandbox_hub
    term = start_codex(hub, [{"text": ANSWER}])
    try:
        ask_codex(term, "how should we cache?")
        term.wait_text("read it back after a restart")
        term.key("C-c")  # an empty input: Codex quits
        text = ended(term)
    finally:
        term.close()
    match = re.search(r"resume it with `hangar discuss -- (codex resume [0-9a-f-]{36})`", text)
    assert match, text
    first = the_discussion(hub)
    assert first["status"] == "open"
    again = start_tmux(hub, match.group(1).split(), name="tmux-resumed")
    try:
        again.wait_text(CODEX_READY, 90)
        assert "Cache the turn table" in open_card(again)  # the plan saved before (LR-120)
        open_fields(again)
        again.key("Right", "Right")
        to_create(again)
        again.key("Enter")
        ended(again)
    finally:
        again.close()
    resumed = the_discussion(hub)
    assert resumed["id"] == first["id"] and resumed["issueKey"] == "HGR-1"


def test_ctrl_c_at_every_step_goes_back_to_the_talk(sandbox_hub: SandboxHub) -> None:
    """LR-084, LR-097 (the plain path), LR-118: Ctrl+C in the `/hangar` menu, on the card's
    fields page, on its "pick the agent member" answer and on its "not created" page (the hub
    away) each go back to Codex with nothing created; the discussion goes on (the next turn is
    saved) and Ctrl+C in Codex itself ends it, kept to resume. Each step is checked by what
    it shows, never by comparing whole screens Codex may redraw."""
    hub = sandbox_hub
    term = start_codex(hub, [{"text": ANSWER}, {"text": "Then measure it."}])
    try:
        ask_codex(term, "how should we cache?")
        term.wait_text("read it back after a restart")
        type_like_a_person(term, "/hangar")
        term.wait_text(MENU_HELP)
        term.key("C-c")  # the menu closes; what was typed stays in Codex's input
        term.wait_gone(MENU_HELP)
        term.wait_text("› /hangar")
        term.key(*["BSpace"] * 7)
        term.wait_gone("/hangar")
        open_card(term)
        open_fields(term)
        term.key("C-c")  # on the fields page
        term.wait_gone("2/2 the fields")
        term.wait_text(CODEX_READY)
        open_card(term)
        open_fields(term)
        term.key("Right")
        term.wait_text("hand to an agent")
        to_create(term)
        term.key("Enter")
        term.wait_text("pick the agent member to hand the issue to")
        term.key("C-c")  # while the card asks for an agent
        term.wait_gone("pick the agent member")
        term.wait_text(CODEX_READY)
        open_card(term)
        open_fields(term)
        to_create(term)
        hub.stop_hub()
        term.key("Enter")
        term.wait_text("not created", 30)
        term.key("C-c")  # on the failure page
        term.wait_gone("not created")
        term.wait_text(CODEX_READY)
        hub.start_hub()
        assert hub.ok("GET", "/api/issues")["issues"] == []
        ask_codex(term, "and then?")
        term.wait_text("Then measure it.", 60)
        discussion = the_discussion(hub)
        wait_until(
            lambda: len(turns_of(hub, discussion["id"])) == 4, 30, "the next turns on the hub"
        )
        term.key("C-c")  # an empty input: Codex quits
        text = ended(term)
    finally:
        term.close()
    assert "kept (4 turns saved)" in text
    after = the_discussion(hub)
    assert (after["status"], after["issueKey"], after["runId"]) == ("open", None, None)
    assert turns_of(hub, after["id"]) == [
        ("user", "how should we cache?"),
        ("assistant", ANSWER),
        ("user", "and then?"),
        ("assistant", "Then measure it."),
    ]
    assert hub.ok("GET", "/api/issues")["issues"] == []
