"""HTTP client of the hub API for CLI commands (``hangar issue``, later ``hangar run``).

Where the hub is: ``HANGAR_SERVER_URL`` (or the ``server_url`` setting) with ``HANGAR_TOKEN``;
otherwise the local ``hangar serve`` of this ``$HANGAR_HOME`` at the configured host and port,
with the token from its token file. Error answers (``{"error": {...}}``) become
:class:`HubRequestError` carrying the hub's code, status and details; an unreachable hub is
:class:`HubUnreachable` with a hint on how to start one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import httpx

from hangar.errors import HangarError
from hangar.paths import Env, environment
from hangar.settings import load_settings

DEFAULT_TIMEOUT = 30.0


@dataclass(eq=False)
class HubUnreachable(HangarError):
    """No hub answered at ``url``."""

    url: str = ""
    code: ClassVar[str] = "hub_unreachable"
    http_status: ClassVar[int] = 503

    def render(self) -> str:
        return (
            f"cannot reach the hub at {self.url} ({self.message}); start it with "
            "`hangar serve`, or set HANGAR_SERVER_URL and HANGAR_TOKEN"
        )


@dataclass(eq=False)
class HubRequestError(HangarError):
    """The hub answered with an error."""

    status: int = 0
    error_code: str = ""
    error_details: dict[str, Any] = field(default_factory=dict)
    code: ClassVar[str] = "hub_error"

    def render(self) -> str:
        return f"hub: {self.message} ({self.error_code}, HTTP {self.status})"

    def details(self) -> dict[str, Any]:
        return {"status": self.status, "code": self.error_code, **self.error_details}


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
        from hangar.hub.auth import read_token_file

        path = settings.paths.token_file
        if not path.exists():
            raise HubUnreachable(url=url, message=f"no HANGAR_TOKEN and no token file at {path}")
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
        try:
            response = self._http.request(method, path, json=json, params=clean)
        except httpx.TransportError as exc:
            raise HubUnreachable(
                url=self.base_url, message=str(exc) or type(exc).__name__
            ) from None
        try:
            body = response.json()
        except ValueError:
            body = None
        if response.is_error:
            error = body.get("error") if isinstance(body, dict) else None
            if not isinstance(error, dict):
                error = {"code": "http_error", "message": response.text[:200]}
            raise HubRequestError(
                message=str(error.get("message", "")),
                status=response.status_code,
                error_code=str(error.get("code", "")),
                error_details=dict(error.get("details") or {}),
            )
        if not isinstance(body, dict):
            raise HubRequestError(
                message="the hub did not answer JSON", status=response.status_code
            )
        return body

    def get(self, path: str, **params: Any) -> dict[str, Any]:
        return self.request("GET", path, params=params)

    def post(self, path: str, body: Any) -> dict[str, Any]:
        return self.request("POST", path, json=body)

    def patch(self, path: str, body: Any) -> dict[str, Any]:
        return self.request("PATCH", path, json=body)
