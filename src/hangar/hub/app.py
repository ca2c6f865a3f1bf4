"""The hub's FastAPI application factory.

``create_app(state, devices)`` wires the routers over one :class:`HubContext`. Every path under
``/api`` passes :class:`ApiAuthMiddleware` first, so an unauthenticated caller learns nothing,
not even which routes exist (401 for all of them). OpenAPI is at ``/docs``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from starlette.requests import Request
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from hangar import __version__
from hangar.errors import HangarError
from hangar.hub import (
    routes_events,
    routes_file_changes,
    routes_issues,
    routes_local_runs,
    routes_runtime_work,
    routes_runtime_worktrees,
    routes_web,
)
from hangar.hub.api_errors import error_response, install_error_handlers
from hangar.hub.auth import Authenticator
from hangar.hub.context import HubContext
from hangar.hub.events import EventBus
from hangar.hub.executor_link import DeviceLinks, ExecutorLink
from hangar.hub.workspace_repo import ensure_workspace
from hangar.state import HangarState

log = logging.getLogger("hangar.hub")
WEB_DIR = Path(__file__).resolve().parent.parent / "web"


#: Every router mounted under ``/api`` (tests walk these to check auth on every route).
API_ROUTERS = (
    routes_runtime_work.router,
    routes_runtime_work.archived,
    routes_runtime_worktrees.router,
    routes_file_changes.router,
    routes_issues.router,
    routes_events.router,
    routes_local_runs.router,
)


class ApiAuthMiddleware:
    """Answers 401/403 in the one error shape for any ``/api`` request without credentials."""

    def __init__(
        self,
        app: ASGIApp,
        auth: Authenticator,
        run_tokens: Callable[[Request], bool] | None = None,
    ) -> None:
        self.app = app
        self.auth = auth
        self.run_tokens = run_tokens
        """Accepts a run-scoped token for the few routes it may use (see routes_local_runs)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and (path == "/api" or path.startswith("/api/")):
            try:
                self.auth.check_api(Request(scope))
            except HangarError as exc:
                if self.run_tokens is None or not self.run_tokens(Request(scope)):
                    response = error_response(exc.http_status, exc.code, str(exc))
                    await response(scope, receive, send)
                    return
        await self.app(scope, receive, send)


def local_devices(state: HangarState, executor: ExecutorLink) -> DeviceLinks:
    """The single-user setup: this device's executor, in process."""
    device = state.device
    return DeviceLinks(
        local_device_id=device.device_id,
        links={device.device_id: executor},
        names={device.device_id: device.name},
    )


def create_app(
    state: HangarState,
    executor: ExecutorLink | DeviceLinks,
    *,
    token: str,
    extra: dict[str, Any] | None = None,
) -> FastAPI:
    """Build the hub app over ``state``'s hub database and the executor(s) it may call."""
    devices = executor if isinstance(executor, DeviceLinks) else local_devices(state, executor)
    workspace = ensure_workspace(state.hub_engine, owner_name=state.device.name or "owner")
    auth = Authenticator(token)
    ctx = HubContext(
        engine=state.hub_engine,
        workspace=workspace,
        devices=devices,
        auth=auth,
        events=EventBus(),
        extra=dict(extra or {}),
    )
    app = FastAPI(
        title="hangar hub",
        version=__version__,
        description="Local-first control plane for coding-agent CLIs. "
        "Every /api call needs `Authorization: Bearer <token>`.",
        docs_url="/docs",
        redoc_url=None,
    )
    app.state.hub = ctx
    install_error_handlers(app)
    for router in API_ROUTERS:
        app.include_router(router)
    app.include_router(routes_web.router)
    app.mount("/static", StaticFiles(directory=WEB_DIR / "static"), name="static")
    app.add_middleware(
        ApiAuthMiddleware, auth=auth, run_tokens=routes_local_runs.RunTokenPolicy(ctx).allows
    )
    return app
