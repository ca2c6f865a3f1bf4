"""Where the card's choices come from: the hub's projects, members and labels.

:class:`IssueCatalog` is the seam; :class:`HubIssueCatalog` reads ``/api/projects``,
``/api/members`` and ``/api/labels`` through :class:`~hangar.hub_client.HubClient`.
:func:`resolve` turns an initial value from the command line or the most recent project
(a name or an id) into one of the hub's options; it stays an editable default (LR-080).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from hangar.localrun.terminal.issue_draft import Option


@dataclass(frozen=True)
class Catalog:
    projects: list[Option]
    members: list[Option]
    labels: list[Option]


class IssueCatalog(Protocol):
    def load(self) -> Catalog:
        """Everything the card offers; raises ``HangarError`` when the hub cannot tell."""
        ...


class JsonGetter(Protocol):
    def get(self, path: str, **params: Any) -> dict[str, Any]: ...


class HubIssueCatalog:
    def __init__(self, client: JsonGetter) -> None:
        self.client = client

    def load(self) -> Catalog:
        projects = self.client.get("/api/projects").get("projects", [])
        members = self.client.get("/api/members").get("members", [])
        labels = self.client.get("/api/labels").get("labels", [])
        return Catalog(
            [Option(str(p["id"]), str(p["name"])) for p in projects],
            [
                Option(
                    str(m["id"]),
                    str(m["name"]),
                    _member_detail(m),
                    kind=str(m.get("role") or ""),
                )
                for m in members
            ],
            [Option(str(lb["id"]), str(lb["name"])) for lb in labels],
        )


def _member_detail(member: dict[str, Any]) -> str:
    role = str(member.get("role") or "")
    email = str(member.get("email") or "")
    return " · ".join(part for part in (email, "agent" if role == "agent" else "") if part)


def resolve(options: list[Option], wanted: str) -> Option | None:
    """The option whose id or name (case-insensitively) is ``wanted``."""
    wanted = wanted.strip()
    if not wanted:
        return None
    for option in options:
        if option.id == wanted or option.name.casefold() == wanted.casefold():
            return option
    return None


def filtered(options: list[Option], typed: str) -> list[Option]:
    return [option for option in options if option.matches(typed)]
