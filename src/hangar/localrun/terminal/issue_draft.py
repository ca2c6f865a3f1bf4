"""What the confirmation card edits and hands back: the issue draft and the card's result.

The card never creates anything itself: its caller passes an :data:`IssueCreator` that turns
an :class:`IssueDraft` into a :class:`CreatedIssue` (or raises a
:class:`~hangar.errors.HangarError` whose message the card shows, keeping every field,
LR-093). The draft's description is the plan's Markdown exactly as shown (LR-088).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

STATUSES = ("backlog", "todo", "in_progress", "in_review", "done", "cancelled")
PRIORITIES = ("none", "urgent", "high", "medium", "low")
_ISSUE_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9]*-\d+$")


class ExecutionMode(enum.Enum):
    CONTINUE = "continue_in_cli"
    """Go on in this CLI: the same session works on the new issue."""
    AGENT = "agent"
    """Hand the issue to an agent through the issue-assignment path."""
    CREATE_ONLY = "create_only"
    """Only create the issue; the provider ends."""

    @property
    def label(self) -> str:
        return {
            ExecutionMode.CONTINUE: "continue in this CLI",
            ExecutionMode.AGENT: "hand to an agent",
            ExecutionMode.CREATE_ONLY: "only create the issue",
        }[self]


class Origin(enum.Enum):
    PLAIN = "plain"
    """``/hangarcreateissue``: every mode, "continue discussing", Ctrl+C back to the talk."""
    NATIVE = "native"
    """A provider's own implement-plan action: mode locked to continuing (LR-059, LR-085)."""


@dataclass(frozen=True)
class Option:
    """One choice from the hub: a project, a member or a label."""

    id: str
    name: str
    detail: str = ""
    kind: str = ""
    """What the option is, where that matters: a member's role (``owner``, ``agent``)."""

    def matches(self, typed: str) -> bool:
        needle = typed.strip().casefold()
        return not needle or needle in self.name.casefold() or needle in self.detail.casefold()


@dataclass
class IssueDraft:
    plan: str
    title: str = ""
    mode: ExecutionMode = ExecutionMode.CONTINUE
    project: Option | None = None
    assignee: Option | None = None
    labels: list[str] = field(default_factory=list)
    status: str = "todo"
    priority: str = "none"
    start_date: str = ""
    due_date: str = ""
    parent_key: str = ""

    def problems(self) -> dict[str, str]:
        """Field name → what is wrong; empty when the draft can be sent."""
        found: dict[str, str] = {}
        if not self.title.strip():
            found["title"] = "a title is needed"
        if self.mode is ExecutionMode.AGENT and (
            self.assignee is None or self.assignee.kind != "agent"
        ):
            found["assignee"] = "pick the agent member to hand the issue to"
        dates: dict[str, date] = {}
        for name in ("start_date", "due_date"):
            value = getattr(self, name).strip()
            if value:
                try:
                    dates[name] = date.fromisoformat(value)
                except ValueError:
                    found[name] = "use YYYY-MM-DD"
        if len(dates) == 2 and dates["due_date"] < dates["start_date"]:
            found["due_date"] = "the due date is before the start date"
        if self.parent_key.strip() and not _ISSUE_KEY.match(self.parent_key.strip()):
            found["parent_key"] = "an issue key such as HGR-12"
        return found

    def to_api(self) -> dict[str, Any]:
        """The ``POST /api/issues`` body."""
        body: dict[str, Any] = {
            "title": self.title.strip(),
            "description": self.plan,
            "status": self.status,
            "priority": self.priority,
            "labels": list(self.labels),
        }
        if self.project is not None:
            body["projectId"] = self.project.id
        if self.assignee is not None:
            body["assigneeId"] = self.assignee.id
        for name, key in (("start_date", "startDate"), ("due_date", "dueDate")):
            if getattr(self, name).strip():
                body[key] = getattr(self, name).strip()
        if self.parent_key.strip():
            body["parentKey"] = self.parent_key.strip().upper()
        return body


@dataclass(frozen=True)
class CreatedIssue:
    key: str
    title: str
    url: str


class Outcome(enum.Enum):
    CREATED = "created"
    CONTINUE_DISCUSSION = "continue_discussion"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class CardResult:
    outcome: Outcome
    origin: Origin
    draft: IssueDraft
    issue: CreatedIssue | None = None


IssueCreator = Callable[[IssueDraft], CreatedIssue]
"""Creates the issue the user confirmed; raises ``HangarError`` when that fails."""


def title_from_plan(plan: str) -> str:
    """The plan's first heading, else its first non-empty line, as the default title."""
    lines = [line.strip() for line in plan.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("#"):
            return line.lstrip("#").strip()[:200]
    return lines[0][:200] if lines else ""
