"""``runtime.usage.summary``: token usage and cost of this device's sessions, grouped.

Rows group the model calls of every session (archived ones included, deleted ones not) by
``task``, ``project``, ``day`` (UTC) or ``model``. ``costUsd`` is ``null`` when no call of the
row has a price in the local table; ``unpricedTokens`` says how much of the row has none.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from hangar.model import TokenUse
from hangar.protocol.codec import Wire

GroupBy = Literal["task", "project", "day", "model"]
Day = Annotated[str, msgspec.Meta(pattern=r"^\d{4}-\d{2}-\d{2}$")]


class UsageRequest(Wire):
    by: GroupBy = "task"
    since: Day | None = None
    """First day counted (UTC, inclusive)."""
    until: Day | None = None
    """Last day counted (UTC, inclusive)."""


class UsageRow(Wire, omit_defaults=False):
    key: str
    label: str
    calls: int
    tokens: TokenUse
    total_tokens: int
    cost_usd: float | None
    unpriced_tokens: int
    local_task_id: str | None = None
    runtime: str | None = None
    project: str | None = None
    models: list[str] = msgspec.field(default_factory=list)


class UsageReport(Wire, omit_defaults=False):
    by: GroupBy
    rows: list[UsageRow]
    total: UsageRow
    sessions: int
    """Sessions whose records were read."""
    prices_file: str | None
    """The override table in use, when there is one."""
