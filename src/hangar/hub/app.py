"""The hub's FastAPI application factory.

``create_app(engine, devices, token=…)`` wires the routers over one :class:`HubContext`: the hub
database, the executors it may call (:class:`~hangar.hub.executor_link.DeviceLinks`) and the
token. It imports nothing of the executor; the composition root (:mod:`hangar.composition`)
builds what it receives. Every path under
``/api`` passes :class:`ApiAuthMiddleware` first, so an unauthenticated caller learns nothing,
not even which routes exist (401 for all of them). OpenAPI is at ``/docs``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI
from sqlalchemy.engine import Engine
from starlette.requests import Request
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from hangar import __version__
from hangar.errors import HangarError
from hangar.hub.api import adoption as adoption_api
from hangar.hub.api import copy as copy_api
from hangar.hub.api import create as create_api
from hangar.hub.api import devices as devices_api
from hangar.hub.api import discussions as discussions_api
from hangar.hub.api import events as events_api
from hangar.hub.api import file_changes as file_changes_api
from hangar.hub.api import files as files_api
from hangar.hub.api import im_hooks
from hangar.hub.api import issues as issues_api
from hangar.hub.api import local_runs as local_runs_api
from hangar.hub.api import notifications as notifications_api
from hangar.hub.api import runtime_work as runtime_api
from hangar.hub.api import turns as turns_api
from hangar.hub.api import usage as usage_api
from hangar.hub.api import worktrees as worktrees_api
from hangar.hub.api.errors import error_response, install_error_handlers
from hangar.hub.api.limits import BodyLimitMiddleware
from hangar.hub.api.local_runs import RunTokenVerdict
from hangar.hub.auth import Authenticator, TooManyFailures, client_address
from hangar.hub.context import HubContext
from hangar.hub.events import EventBus
from hangar.hub.executor_link import DeviceLinks
from hangar.hub.http_policy import HostCheckMiddleware, HostPolicy, SecurityHeadersMiddleware
from hangar.hub.pages import runtime as runtime_pages
from hangar.hub.pages import terminal as terminal_pages
from hangar.hub.store.attachments import AttachmentStore
from hangar.hub.store.browser_sessions import BrowserSessions
from hangar.hub.store.workspaces import ensure_workspace
from hangar.hub.terminals import TerminalAccess

if TYPE_CHECKING:
    from hangar.hub.devices.directory import DeviceDirectory
    from hangar.hub.notify.service import Notifications

log = logging.getLogger("hangar.hub")
WEB_DIR = Path(__file__).resolve().parent.parent / "web"


#: Every router mounted under ``/api`` (tests walk these to check auth on every route).
API_ROUTERS = (
    runtime_api.router,
    runtime_api.archived,
    turns_api.router,
    create_api.router,
    copy_api.router,
    worktrees_api.router,
    file_changes_api.router,
    files_api.router,
    issues_api.router,
    events_api.router,
    local_runs_api.router,
    discussions_api.router,
    usage_api.router,
    adoption_api.router,
    devices_api.router,
    notifications_api.router,
)


class ApiAuthMiddleware:
    """Answers 401/403 in the one error shape for any ``/api`` request without credentials,
    and 429 to an address that spent its budget of failed tokens (see
    :mod:`hangar.hub.auth_throttle`)."""

    def __init__(
        self,
        app: ASGIApp,
        auth: Authenticator,
        run_tokens: Callable[[Request], RunTokenVerdict] | None = None,
    ) -> None:
        self.app = app
        self.auth = auth
        self.run_tokens = run_tokens
        """Judges a run-scoped token for the few routes it may use (see api/local_runs)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and (path == "/api" or path.startswith("/api/")):
            request = Request(scope)
            client = client_address(request)
            presented = "authorization" in request.headers
            refusal: HangarError | None = self.auth.throttled(client) if presented else None
            if refusal is None:
                try:
                    self.auth.check_api(request)
                except HangarError as exc:
                    verdict = self.run_tokens(request) if self.run_tokens else "unknown"
                    if verdict != "allowed":
                        if presented and verdict == "unknown":
                            self.auth.throttle.failed(client)
                        refusal = exc
            if refusal is not None:
                response = error_response(refusal.http_status, refusal.code, str(refusal))
                if isinstance(refusal, TooManyFailures):
                    response.headers["Retry-After"] = str(refusal.retry_after)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


@dataclass(frozen=True)
class RemoteOptions:
    """How the hub treats remote devices (the composition root reads the settings)."""

    directory: DeviceDirectory | None = None
    """Accept remote executors through this directory (``None``: in-process devices only)."""
    fanout_timeout: float = 10.0
    rpc_timeout: float = 60.0
    public_url: str = "http://127.0.0.1:8765"


def _default_uploads(engine: Engine) -> Path:
    database = engine.url.database
    if engine.dialect.name == "sqlite" and database and database != ":memory:":
        return Path(database).parent / "attachments"
    import tempfile

    return Path(tempfile.gettempdir()) / "hangar-attachments"


def create_app(
    engine: Engine,
    devices: DeviceLinks,
    *,
    token: str,
    owner_name: str = "owner",
    extra: dict[str, Any] | None = None,
    hosts: HostPolicy | None = None,
    events: EventBus | None = None,
    attachments: AttachmentStore | None = None,
    remote: RemoteOptions | None = None,
    notifications: Notifications | None = None,
    terminal_access: TerminalAccess | None = None,
) -> FastAPI:
    """Build the hub app over its database and the executor(s) it may call.

    ``hosts`` is the Host allow-list (default: a hub bound to 127.0.0.1; see
    :mod:`hangar.hub.http_policy`). ``events`` is the SSE bus (the composition root shares it
    with the executor's turn stream); ``attachments`` keeps uploads (default: a folder beside a
    file database, else a temp folder); ``terminal_access`` says whether the web UI may open
    device terminals (default: yes, as for a hub on a loopback address; ``hangar serve``
    passes what its bind allows).
    """
    workspace = ensure_workspace(engine, owner_name=owner_name or "owner")
    auth = Authenticator(token, BrowserSessions(engine))
    remote = remote or RemoteOptions()
    ctx = HubContext(
        engine=engine,
        workspace=workspace,
        devices=devices,
        auth=auth,
        events=events if events is not None else EventBus(),
        attachments=attachments or AttachmentStore(engine, _default_uploads(engine)),
        extra=dict(extra or {}),
        fanout_timeout=remote.fanout_timeout,
        rpc_timeout=remote.rpc_timeout,
        directory=remote.directory,
        public_url=remote.public_url,
        notifications=notifications,
        terminal_access=terminal_access or TerminalAccess(),
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
    app.include_router(devices_api.socket_router)
    app.include_router(im_hooks.router)
    app.include_router(runtime_pages.router)
    app.include_router(terminal_pages.router)
    app.mount("/static", StaticFiles(directory=WEB_DIR / "static"), name="static")
    app.add_middleware(BodyLimitMiddleware)  # inside auth: a stranger gets 401 first
    app.add_middleware(
        ApiAuthMiddleware, auth=auth, run_tokens=local_runs_api.RunTokenPolicy(ctx).verdict
    )
    # Added last = runs first: a refused Host reaches nothing, and every answer (the refusal
    # included) carries the security headers.
    app.add_middleware(HostCheckMiddleware, policy=hosts or HostPolicy.for_bind("127.0.0.1"))
    app.add_middleware(SecurityHeadersMiddleware)
    return app
