"""The hub calls of ``hangar discuss``, behind one small interface.

:class:`DiscussionApi` is the discussion's side of the hub (``/api/discussions…``) plus the
run and issue calls the binding needs; :class:`HttpDiscussionApi` implements it over the one
:class:`~hangar.hub_client.HubClient`. Every method succeeds or raises
:class:`~hangar.hub_client.HubUnavailable` (worth retrying or spooling) or
:class:`~hangar.hub_client.HubRejected` (refused for good), like
:class:`~hangar.localrun.hub_api.RunApi`.

:class:`TurnPoster` lets the run reporter and the spool carry discussion turns: it answers
the reporter's ``post_message`` with ``POST /api/discussions/{id}/turns``, so turns get the
same queue, retries, spool and re-sending as run messages ("nothing lost").
"""

from __future__ import annotations

from typing import Any, Protocol

from hangar.hub_client import HubClient, HubRejected, hub_location
from hangar.localrun.hub_api import HttpRunApi
from hangar.paths import Env

PLAN_KIND = "discussion_plan"
"""``input.kind`` of the internal message that carries a plan turn to the turn poster."""
_ROLES = {"user_input": "user", "final": "assistant"}


class DiscussionApi(Protocol):
    server_url: str
    runs: HttpRunApi

    def open(self, body: dict[str, Any]) -> dict[str, Any]: ...
    def heartbeat(self, discussion_id: str, body: dict[str, Any]) -> dict[str, Any]: ...
    def add_turn(self, discussion_id: str, turn: dict[str, Any]) -> bool: ...
    def get(self, discussion_id: str) -> dict[str, Any]: ...
    def list(self, **params: Any) -> list[dict[str, Any]]: ...
    def create_issue(self, discussion_id: str, body: dict[str, Any]) -> dict[str, Any]: ...
    def link(self, discussion_id: str, body: dict[str, Any]) -> dict[str, Any]: ...
    def get_json(self, path: str, **params: Any) -> dict[str, Any]: ...


class HttpDiscussionApi:
    def __init__(self, client: HubClient) -> None:
        self.client = client
        self.server_url = client.base_url
        self.runs = HttpRunApi(client)

    @classmethod
    def from_environment(
        cls, environ: Env | None = None, timeout: float = 5.0
    ) -> HttpDiscussionApi:
        url, token = hub_location(environ)
        return cls(HubClient(url, token, timeout=timeout))

    def close(self) -> None:
        self.client.close()

    def open(self, body: dict[str, Any]) -> dict[str, Any]:
        return self.client.post("/api/discussions", body)

    def heartbeat(self, discussion_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return self.client.patch(f"/api/discussions/{discussion_id}", body)

    def add_turn(self, discussion_id: str, turn: dict[str, Any]) -> bool:
        path = f"/api/discussions/{discussion_id}/turns"
        return self.client.send("POST", path, json=turn).status_code == 201

    def get(self, discussion_id: str) -> dict[str, Any]:
        return self.client.get(f"/api/discussions/{discussion_id}")

    def list(self, **params: Any) -> list[dict[str, Any]]:
        return list(self.client.get("/api/discussions", **params)["discussions"])

    def create_issue(self, discussion_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return self.client.post(f"/api/discussions/{discussion_id}/issue", body)

    def link(self, discussion_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return self.client.post(f"/api/discussions/{discussion_id}/link", body)

    def get_json(self, path: str, **params: Any) -> dict[str, Any]:
        return self.client.get(path, **params)


def turn_body(payload: dict[str, Any]) -> dict[str, Any] | None:
    """The ``/turns`` body for a recorder message (``None``: not a turn, never sent)."""
    kind = payload.get("type")
    data = payload.get("input") or {}
    role = "plan" if kind == "text" and data.get("kind") == PLAN_KIND else _ROLES.get(str(kind))
    if role is None or not str(payload.get("content") or "").strip():
        return None
    return {
        "role": role,
        "content": payload["content"],
        "source": payload["source"],
        "sourceKey": payload["sourceKey"],
    }


class TurnPoster:
    """The run reporter's and the spool's view of a discussion (see the module docstring).

    ``run_id`` in the reporter's calls is the discussion id. Usage and status are not kept for
    a discussion (there is no run yet), so they are accepted and dropped."""

    def __init__(self, api: DiscussionApi) -> None:
        self.api = api
        self.server_url = api.server_url

    def post_message(self, discussion_id: str, message: dict[str, Any]) -> bool:
        body = turn_body(message)
        if body is None:
            return False
        return self.api.add_turn(discussion_id, body)

    def post_messages(self, discussion_id: str, messages: list[dict[str, Any]]) -> list[bool]:
        return [self.post_message(discussion_id, message) for message in messages]

    def put_usage(self, discussion_id: str, usage: list[dict[str, Any]]) -> None:
        return None

    def patch_run(self, discussion_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return {}

    def get_issue(self, key: str) -> dict[str, Any]:
        raise HubRejected(status=404, error_code="not_found", problem="a discussion has no issue")

    def create_run(self, issue_key: str, body: dict[str, Any]) -> dict[str, Any]:
        raise HubRejected(status=400, error_code="bad_request", problem="not a run")
