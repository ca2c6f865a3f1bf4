"""The hub connection a local run uses, behind one small interface (real and in-memory).

Contract of :class:`RunApi`: every method either succeeds, raises :class:`HubUnavailable`
(transient: connection refused or reset, timeout, HTTP 5xx/408/429 — worth retrying or
spooling) or raises :class:`HubRejected` (the hub understood and refused: retrying the same
request cannot help). ``post_message`` returns ``True`` when the hub stored a new message and
``False`` when it already had one with the same (source, sourceKey); ``post_messages`` does the
same for a list (stored in order, in one hub transaction) and returns one flag per message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import httpx

from hangar.errors import HangarError
from hangar.hub_client import hub_location
from hangar.paths import Env


@dataclass(eq=False)
class HubUnavailable(HangarError):
    """The hub could not be reached or failed transiently."""

    url: str = ""
    problem: str = ""
    code: ClassVar[str] = "hub_unavailable"
    http_status: ClassVar[int] = 503

    def render(self) -> str:
        return f"hub at {self.url} unavailable: {self.problem}"


@dataclass(eq=False)
class HubRejected(HangarError):
    """The hub answered with a permanent error for this request."""

    status: int = 0
    error_code: str = ""
    problem: str = ""
    code: ClassVar[str] = "hub_rejected"
    http_status: ClassVar[int] = 400

    def render(self) -> str:
        return f"hub refused the request ({self.status} {self.error_code}): {self.problem}"


class RunApi(Protocol):
    """The calls of ``hangar run`` and of the reporter (see the module docstring)."""

    server_url: str

    def get_issue(self, key: str) -> dict[str, Any]: ...
    def create_run(self, issue_key: str, body: dict[str, Any]) -> dict[str, Any]: ...
    def patch_run(self, run_id: str, body: dict[str, Any]) -> dict[str, Any]: ...
    def put_usage(self, run_id: str, usage: list[dict[str, Any]]) -> None: ...
    def post_message(self, run_id: str, message: dict[str, Any]) -> bool: ...
    def post_messages(self, run_id: str, messages: list[dict[str, Any]]) -> list[bool]: ...


@dataclass(frozen=True)
class HubAddress:
    url: str
    token: str


def resolve_hub(environ: Env | None = None) -> HubAddress:
    """Where the hub is (see :func:`hangar.hub_client.hub_location`)."""
    url, token = hub_location(environ)
    return HubAddress(url, token)


_TRANSIENT = frozenset({408, 425, 429, 500, 502, 503, 504})


class HttpRunApi:
    """:class:`RunApi` over HTTP (httpx; thread-safe, one connection pool)."""

    def __init__(self, address: HubAddress, timeout: float = 5.0) -> None:
        self.server_url = address.url
        self._client = httpx.Client(
            base_url=address.url,
            headers={"Authorization": f"Bearer {address.token}"},
            timeout=timeout,
        )

    def close(self) -> None:
        self._client.close()

    def _call(self, method: str, path: str, body: Any = None) -> httpx.Response:
        try:
            response = self._client.request(method, path, json=body)
        except httpx.HTTPError as exc:
            raise HubUnavailable(
                url=self.server_url, problem=str(exc) or type(exc).__name__
            ) from None
        if response.status_code in _TRANSIENT:
            raise HubUnavailable(url=self.server_url, problem=f"HTTP {response.status_code}")
        if response.status_code >= 400:
            code, problem = "", response.text[:300]
            try:
                error = response.json().get("error", {})
                code, problem = str(error.get("code", "")), str(error.get("message", problem))
            except (ValueError, AttributeError):
                pass
            raise HubRejected(status=response.status_code, error_code=code, problem=problem)
        return response

    def get_issue(self, key: str) -> dict[str, Any]:
        data: dict[str, Any] = self._call("GET", f"/api/issues/{key}").json()
        return data

    def create_run(self, issue_key: str, body: dict[str, Any]) -> dict[str, Any]:
        path = f"/api/issues/{issue_key}/local-runs"
        data: dict[str, Any] = self._call("POST", path, body).json()
        return data

    def patch_run(self, run_id: str, body: dict[str, Any]) -> dict[str, Any]:
        data: dict[str, Any] = self._call("PATCH", f"/api/local-runs/{run_id}", body).json()
        return data

    def put_usage(self, run_id: str, usage: list[dict[str, Any]]) -> None:
        self._call("PUT", f"/api/local-runs/{run_id}/usage", {"usage": usage})

    def post_message(self, run_id: str, message: dict[str, Any]) -> bool:
        response = self._call("POST", f"/api/local-runs/{run_id}/messages", message)
        return response.status_code == 201

    def post_messages(self, run_id: str, messages: list[dict[str, Any]]) -> list[bool]:
        path = f"/api/local-runs/{run_id}/messages/batch"
        results = self._call("POST", path, {"messages": messages}).json()["results"]
        return [bool(result["created"]) for result in results]


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
