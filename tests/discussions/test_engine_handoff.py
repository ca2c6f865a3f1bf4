"""The terminal engine's side of a CLI's own plan action, on the fake terminal: a card asked for
from another thread (through the engine's inbox) opens like a command's, the menu gives way
to it, and the card's empty-plan page and agent rule behave as the seed says."""

from __future__ import annotations

import threading

import pytest

from hangar.errors import HangarError
from hangar.localrun.terminal.card import IssueCard
from hangar.localrun.terminal.catalog import Catalog
from hangar.localrun.terminal.inbox import EngineInbox
from hangar.localrun.terminal.issue_draft import (
    CardResult,
    CreatedIssue,
    ExecutionMode,
    IssueDraft,
    Option,
    Origin,
    Outcome,
)
from hangar.localrun.terminal.overlay import Host
from terminal.fake_terminal import Driver  # tests/terminal, a sibling package

ENTER, CTRL_C, ESC = "\r", "\x03", "\x1b"
PLAN = "# Cache the index\n\n1. Persist the turn table.\n"


class StaticCatalog:
    """The card's lists as a hub would give them (one owner, one agent)."""

    def load(self) -> Catalog:
        return Catalog(
            [Option("p1", "Web app")],
            [
                Option("m1", "Owner", kind="owner"),
                Option("m2", "Review bot", "agent", kind="agent"),
            ],
            [],
        )


def card(plan: str, origin: Origin, results: list[CardResult]) -> IssueCard:
    def create(draft: IssueDraft) -> CreatedIssue:
        raise HangarError("no hub in this test")

    def done(result: CardResult, _host: Host) -> None:
        results.append(result)

    return IssueCard(plan, StaticCatalog(), create, origin=origin, on_result=done)


def test_a_card_submitted_from_another_thread_opens_and_the_menu_gives_way() -> None:
    """LR-074: the native action's card reaches the engine from the provider's thread
    through the inbox; an open menu closes for it; Ctrl+C closes it again (LR-097, LR-099:
    the area goes, the CLI's screen is back)."""
    reference = Driver(rows=24, columns=80, alternate=True)
    reference.type("/hangar", ESC)  # the screen once a menu has come and gone
    driver = Driver(rows=24, columns=80, alternate=True)
    driver.type("/hangar")
    assert driver.menu_shown()
    inbox = EngineInbox()
    results: list[CardResult] = []
    worker = threading.Thread(
        target=lambda: inbox.submit(
            lambda engine: engine.open_overlay(card(PLAN, Origin.NATIVE, results))
        )
    )
    worker.start()
    worker.join()
    inbox.run_pending(driver.engine)
    driver.settle()
    assert not driver.menu_shown()
    assert "1/2 the plan" in driver.text() and "Ctrl+C cancel and end the CLI" in driver.text()
    driver.type(CTRL_C)
    assert [r.outcome for r in results] == [Outcome.CANCELLED]
    assert driver.lines() == reference.lines()
    inbox.close()


@pytest.mark.parametrize(
    ("origin", "outcome"),
    [(Origin.PLAIN, Outcome.CONTINUE_DISCUSSION), (Origin.NATIVE, Outcome.CANCELLED)],
)
def test_an_empty_plan_has_nothing_to_create(origin: Origin, outcome: Outcome) -> None:
    """Bad input: an empty plan: the card says there is nothing to create; Enter goes back to
    the discussion (plain) or ends the CLI keeping the discussion (native, LR-086)."""
    driver = Driver(rows=24, columns=80, alternate=True)
    results: list[CardResult] = []
    driver.engine.open_overlay(card("  \n", origin, results))
    driver.settle()
    assert "nothing to create an issue from" in driver.text()
    driver.type(ENTER)
    assert [r.outcome for r in results] == [outcome]


def test_hand_to_an_agent_needs_an_agent_member_on_the_card() -> None:
    """LR-091: the card does not send "hand to an agent" without an agent as the assignee."""
    results: list[CardResult] = []
    overlay = card(PLAN, Origin.PLAIN, results)
    overlay.draft.mode = ExecutionMode.AGENT
    assert "assignee" in overlay.draft.problems()
    overlay.draft.assignee = Option("m1", "Owner", kind="owner")
    assert "assignee" in overlay.draft.problems()
    overlay.draft.assignee = Option("m2", "Review bot", kind="agent")
    assert "assignee" not in overlay.draft.problems()
