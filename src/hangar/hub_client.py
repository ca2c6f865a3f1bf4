"""The one HTTP client of the hub API, for the CLI commands and the local-run reporter.

Where the hub is: ``HANGAR_SERVER_URL`` (or the ``server_url`` setting) with ``HANGAR_TOKEN``;
otherwise the local ``hangar serve`` of this ``$HANGAR_HOME`` at the configured host and port,
with the token from its token file.

Two errors, parsed in one place: :class:`HubUnavailable` (transient — unreachable, time-out,
5xx/408/425/429: worth retrying or spooling) and :class:`HubRejected` (the hub's own error
code, message and details from its one error shape: retrying the same request cannot help).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import httpx

from hangar.errors import HangarError
from hangar.paths import Env, environment
from hangar.settings import load_settings
from hangar.token_file import read_token_file

DEFAULT_TIMEOUT = 30.0


@dataclass(eq=False)
class HubUnavailable(HangarError):
    """The hub could not be reached or failed transiently (connection refused or reset,
    time-out, HTTP 5xx/408/425/429): worth retrying, or spooling what must reach it."""

    url: str = ""
    problem: str = ""
    code: ClassVar[str] = "hub_unavailable"
    http_status: ClassVar[int] = 503

    def render(self) -> str:
        return (
            f"cannot reach the hub at {self.url} ({self.problem}); start it with "
            "`hangar serve`, or set HANGAR_SERVER_URL and HANGAR_TOKEN"
        )


@dataclass(eq=False)
class HubRejected(HangarError):
    """The hub understood the request and refused it: sending it again cannot help."""

    status: int = 0
    error_code: str = ""
    problem: str = ""
    error_details: dict[str, Any] = field(default_factory=dict)
    code: ClassVar[str] = "hub_rejected"
    http_status: ClassVar[int] = 400

    def render(self) -> str:
        return f"hub: {self.problem} ({self.error_code}, HTTP {self.status})"

    def details(self) -> dict[str, Any]:
        return {"status": self.status, "code": self.error_code, **self.error_details}


TRANSIENT_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


def _local_url(host: str, port: int) -> str:
    if host in {"0.0.0.0", "::", ""}:
        host = "127.0.0.1"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def hub_location(environ: Env | None = None) -> tuple[str, str]:
    """``(base_url, token)`` of the hub the CLI should talk to."""
    env = environment(environ)
    settings = load_settings(env)
    url = env.get("HANGAR_SERVER_URL") or str(settings.server_url or "")
    token = env.get("HANGAR_TOKEN", "").strip()
    if not url:
        url = _local_url(str(settings.host), int(settings.port))
    if not token:
        path = settings.paths.token_file
        if not path.exists():
            raise HubUnavailable(url=url, problem=f"no HANGAR_TOKEN and no token file at {path}")
        token = read_token_file(path)
    return url.rstrip("/"), token


class HubClient:
    """Synchronous JSON calls to one hub with its bearer token."""

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._http = httpx.Client(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=timeout,
            transport=transport,
            trust_env=False,
        )

    @classmethod
    def from_environment(cls, environ: Env | None = None) -> HubClient:
        url, token = hub_location(environ)
        return cls(url, token)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> HubClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        clean = {k: v for k, v in (params or {}).items() if v is not None}
        response = self.send(method, path, json=json, params=clean)
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise HubRejected(
                status=response.status_code,
                error_code="not_json",
                problem="the hub did not answer JSON",
            )
        return body

    def send(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
    ) -> httpx.Response:
        """One request; its response when the hub accepted it. Raises :class:`HubUnavailable`
        or :class:`HubRejected` (with the hub's error code, message and details)."""
        try:
            response = self._http.request(method, path, json=json, params=params)
        except httpx.HTTPError as exc:
            raise HubUnavailable(
                url=self.base_url, problem=str(exc) or type(exc).__name__
            ) from None
        if response.status_code in TRANSIENT_STATUSES:
            raise HubUnavailable(url=self.base_url, problem=_problem(response))
        if response.is_error:
            error = _error_of(response)
            raise HubRejected(
                status=response.status_code,
                error_code=str(error.get("code", "")),
                problem=str(error.get("message", "")),
                error_details=dict(error.get("details") or {}),
            )
        return response

    def get(self, path: str, **params: Any) -> dict[str, Any]:
        return self.request("GET", path, params=params)

    def post(self, path: str, body: Any) -> dict[str, Any]:
        return self.request("POST", path, json=body)

    def patch(self, path: str, body: Any) -> dict[str, Any]:
        return self.request("PATCH", path, json=body)

    def put(self, path: str, body: Any) -> dict[str, Any]:
        return self.request("PUT", path, json=body)


def _error_of(response: httpx.Response) -> dict[str, Any]:
    """The ``{"error": {...}}`` of an error answer (one shape for every hub error)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return error
    return {"code": "http_error", "message": response.text[:200]}


def _problem(response: httpx.Response) -> str:
    message = str(_error_of(response).get("message") or "")
    return f"HTTP {response.status_code}" + (f": {message}" if message else "")
