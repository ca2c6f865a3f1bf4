"""The hub connection a local run uses, behind one small interface (real and in-memory).

Contract of :class:`RunApi`: every method either succeeds, raises
:class:`~hangar.hub_client.HubUnavailable` (transient: connection refused or reset, timeout,
HTTP 5xx/408/429 — worth retrying or spooling) or raises :class:`~hangar.hub_client.HubRejected`
(the hub understood and refused: retrying the same request cannot help). ``post_message``
returns ``True`` when the hub stored a new message and ``False`` when it already had one with
the same (source, sourceKey); ``post_messages`` does the same for a list (stored in order, in
one hub transaction) and returns one flag per message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from hangar.hub_client import HubClient, HubRejected, HubUnavailable, hub_location
from hangar.paths import Env

__all__ = ["HttpRunApi", "HubRejected", "HubUnavailable", "InMemoryRunApi", "RunApi"]


class RunApi(Protocol):
    """The calls of ``hangar run`` and of the reporter (see the module docstring)."""

    server_url: str

    def get_issue(self, key: str) -> dict[str, Any]: ...
    def create_run(self, issue_key: str, body: dict[str, Any]) -> dict[str, Any]: ...
    def patch_run(self, run_id: str, body: dict[str, Any]) -> dict[str, Any]: ...
    def put_usage(self, run_id: str, usage: list[dict[str, Any]]) -> None: ...
    def post_message(self, run_id: str, message: dict[str, Any]) -> bool: ...
    def post_messages(self, run_id: str, messages: list[dict[str, Any]]) -> list[bool]: ...


class HttpRunApi:
    """:class:`RunApi` over the hub's HTTP API (one :class:`~hangar.hub_client.HubClient`,
    thread-safe, one connection pool)."""

    def __init__(self, client: HubClient) -> None:
        self.client = client
        self.server_url = client.base_url

    @classmethod
    def from_environment(cls, environ: Env | None = None, timeout: float = 5.0) -> HttpRunApi:
        url, token = hub_location(environ)
        return cls(HubClient(url, token, timeout=timeout))

    def close(self) -> None:
        self.client.close()

    def get_issue(self, key: str) -> dict[str, Any]:
        return self.client.get(f"/api/issues/{key}")

    def create_run(self, issue_key: str, body: dict[str, Any]) -> dict[str, Any]:
        return self.client.post(f"/api/issues/{issue_key}/local-runs", body)

    def patch_run(self, run_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return self.client.patch(f"/api/local-runs/{run_id}", body)

    def put_usage(self, run_id: str, usage: list[dict[str, Any]]) -> None:
        self.client.send("PUT", f"/api/local-runs/{run_id}/usage", json={"usage": usage})

    def post_message(self, run_id: str, message: dict[str, Any]) -> bool:
        response = self.client.send("POST", f"/api/local-runs/{run_id}/messages", json=message)
        return response.status_code == 201

    def post_messages(self, run_id: str, messages: list[dict[str, Any]]) -> list[bool]:
        path = f"/api/local-runs/{run_id}/messages/batch"
        answer = self.client.post(path, {"messages": messages})
        return [bool(result["created"]) for result in answer["results"]]


@dataclass
class InMemoryRunApi:
    """:class:`RunApi` kept in memory; ``online = False`` makes every call unavailable."""

    server_url: str = "memory://hub"
    online: bool = True
    issues: dict[str, dict[str, Any]] = field(default_factory=dict)
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)
    messages: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    usage: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)

    def _check(self, name: str) -> None:
        self.calls.append(name)
        if not self.online:
            raise HubUnavailable(url=self.server_url, problem="offline")

    def get_issue(self, key: str) -> dict[str, Any]:
        self._check("get_issue")
        if key not in self.issues:
            raise HubRejected(status=404, error_code="not_found", problem=f"issue {key}")
        return self.issues[key]

    def create_run(self, issue_key: str, body: dict[str, Any]) -> dict[str, Any]:
        self._check("create_run")
        issue = self.get_issue(issue_key)
        run_id = f"run-{len(self.runs) + 1}"
        run = {"id": run_id, "issueId": issue["id"], "status": "running", **body}
        run["runToken"] = f"run-token-{run_id}"
        self.runs[run_id] = run
        return run

    def patch_run(self, run_id: str, body: dict[str, Any]) -> dict[str, Any]:
        self._check("patch_run")
        run = self.runs[run_id]
        if run["status"] in ("completed", "failed", "cancelled"):
            return run
        run.update(body)
        return run

    def put_usage(self, run_id: str, usage: list[dict[str, Any]]) -> None:
        self._check("put_usage")
        self.usage[run_id] = usage

    def post_message(self, run_id: str, message: dict[str, Any]) -> bool:
        self._check("post_message")
        stored = self.messages.setdefault(run_id, [])
        key = (message.get("source"), message.get("sourceKey"))
        if any((m.get("source"), m.get("sourceKey")) == key for m in stored):
            return False
        stored.append(dict(message, seq=len(stored) + 1))
        return True

    def post_messages(self, run_id: str, messages: list[dict[str, Any]]) -> list[bool]:
        self._check("post_messages")
        return [self.post_message(run_id, message) for message in messages]
