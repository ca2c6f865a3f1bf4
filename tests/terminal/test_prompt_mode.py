"""The card's accessible line-by-line mode for non-interactive terminals, against a real hub."""

from __future__ import annotations

from collections.abc import Iterator

from hangar.hub_client import HubClient
from hangar.localrun.terminal.catalog import HubIssueCatalog
from hangar.localrun.terminal.issue_draft import ExecutionMode, Origin, Outcome
from hangar.localrun.terminal.prompt_mode import prompt_for_issue

from .card_kit import PLAN, hub_creator


class Script:
    """Answers given in order; what was asked and said, kept as plain text."""

    def __init__(self, *answers: str) -> None:
        self._answers: Iterator[str] = iter(answers)
        self.transcript: list[str] = []

    def ask(self, question: str) -> str | None:
        self.transcript.append(question)
        return next(self._answers, None)

    def say(self, line: str) -> None:
        self.transcript.append(line)

    @property
    def text(self) -> str:
        return "\n".join(self.transcript)


def test_line_by_line_creates_with_filtered_choices(hub: HubClient) -> None:
    """LR-114, LR-079: one question per line, no escape sequences; project and labels by
    part of their names (several matches are listed to pick from)."""
    _, create = hub_creator(hub)
    script = Script("3", "", "w", "2", "", "back", "n", "y")
    result = prompt_for_issue(PLAN, HubIssueCatalog(hub), create, script.ask, script.say)  # type: ignore[arg-type]
    assert result.outcome is Outcome.CREATED and result.issue is not None
    assert result.draft.mode is ExecutionMode.CREATE_ONLY
    assert "  1) Web app" in script.text and "  2) Worker" in script.text
    assert "\x1b" not in script.text
    assert f"Issue {result.issue.key} created" in script.text
    issue = hub.get(f"/api/issues/{result.issue.key}")
    assert issue["description"] == PLAN and issue["labels"] == ["backend"]
    assert issue["title"] == "Cache the transcript index"


def test_line_by_line_failure_keeps_answers_and_retries(hub: HubClient) -> None:
    """LR-093, LR-094, LR-115: the hub refuses an unknown parent; the answers are kept;
    editing only that field then creates the issue with everything else unchanged."""
    tried, create = hub_creator(hub)
    script = Script(
        "1", "Only the cache", "docs", "", "ui", "y", "", "high", "", "", "HGR-77", "y",
        "e",  # the failure: back to edit
        "", "", "", "", "", "y", "", "", "", "", "-", "y",
    )  # fmt: skip
    result = prompt_for_issue(
        PLAN,
        HubIssueCatalog(hub),
        create,
        script.ask,
        script.say,
        origin=Origin.PLAIN,  # type: ignore[arg-type]
    )
    assert "Could not create the issue" in script.text and "Every answer is kept" in script.text
    assert result.outcome is Outcome.CREATED and result.issue is not None
    assert len(tried) == 2
    issue = hub.get(f"/api/issues/{result.issue.key}")
    assert (issue["title"], issue["labels"], issue["priority"]) == (
        "Only the cache",
        ["ui"],
        "high",
    )


def test_end_of_input_cancels(hub: HubClient) -> None:
    tried, create = hub_creator(hub)
    script = Script("1")
    result = prompt_for_issue(PLAN, HubIssueCatalog(hub), create, script.ask, script.say)  # type: ignore[arg-type]
    assert result.outcome is Outcome.CANCELLED
    assert tried == []
