"""Helpers for card tests: a card command over a real hub, results kept for the test."""

from __future__ import annotations

from dataclasses import dataclass, field

from hangar.hub_client import HubClient
from hangar.localrun.terminal.card import Defaults, IssueCard, finish_card
from hangar.localrun.terminal.catalog import HubIssueCatalog, IssueCatalog
from hangar.localrun.terminal.commands import Command, CommandRegistry
from hangar.localrun.terminal.issue_draft import CardResult, CreatedIssue, IssueDraft, Origin
from hangar.localrun.terminal.overlay import Host, Overlay

PLAN = """# Cache the transcript index

1. Persist the **turn table** by file signature.
2. Read it back on the first open after a restart.

- keep the append path proportional to the appended bytes
- measure with `bench/first_open.py`

```sh
make bench
```
"""


def hub_creator(client: HubClient) -> tuple[list[IssueDraft], object]:
    tried: list[IssueDraft] = []

    def create(draft: IssueDraft) -> CreatedIssue:
        tried.append(draft)
        issue = client.post("/api/issues", draft.to_api())
        return CreatedIssue(
            issue["key"], issue["title"], f"{client.base_url}/issues/{issue['key']}"
        )

    return tried, create


@dataclass
class CardCommand:
    """``/hangarcreateissue`` opening an :class:`IssueCard` over ``catalog``."""

    catalog: IssueCatalog
    client: HubClient
    plan: str = PLAN
    origin: Origin = Origin.PLAIN
    defaults: Defaults = field(default_factory=Defaults)
    results: list[CardResult] = field(default_factory=list)
    cards: list[IssueCard] = field(default_factory=list)
    tried: list[IssueDraft] = field(default_factory=list)

    def registry(self) -> CommandRegistry:
        return CommandRegistry((Command("/hangarcreateissue", "Create an issue", self.start),))

    def start(self, _host: Host) -> Overlay | None:
        tried, create = hub_creator(self.client)
        self.tried = tried

        def done(result: CardResult, host: Host) -> None:
            self.results.append(result)
            finish_card(result, host)

        card = IssueCard(
            self.plan,
            self.catalog,
            create,  # type: ignore[arg-type]
            origin=self.origin,
            defaults=self.defaults,
            on_result=done,
        )
        self.cards.append(card)
        return card


def hub_card(client: HubClient, **kwargs: object) -> CardCommand:
    return CardCommand(HubIssueCatalog(client), client, **kwargs)  # type: ignore[arg-type]
