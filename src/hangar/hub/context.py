"""What every route needs, built once by the app factory and kept on ``app.state.hub``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import Depends
from sqlalchemy.engine import Engine
from starlette.requests import Request

from hangar.hub.auth import Authenticator
from hangar.hub.events import EventBus
from hangar.hub.executor_link import DeviceLinks
from hangar.hub.runtime_view import RuntimeView
from hangar.hub.runtime_work import DeviceInfo
from hangar.hub.store.attachments import AttachmentStore
from hangar.hub.store.workspaces import Workspace
from hangar.hub.terminals import TerminalAccess, TerminalRelay


@dataclass
class HubContext:
    engine: Engine
    workspace: Workspace
    devices: DeviceLinks
    auth: Authenticator
    events: EventBus
    attachments: AttachmentStore
    extra: dict[str, Any] = field(default_factory=dict)
    runtime_view: RuntimeView = field(default_factory=RuntimeView)
    """The ``GET /api/runtime-work`` body, rebuilt once per change of a device's list."""
    terminal_access: TerminalAccess = field(default_factory=TerminalAccess)
    """Whether the web UI may open device terminals (off on a remote bind by default)."""
    terminals: TerminalRelay = field(default_factory=TerminalRelay)
    """Where devices' terminal output goes: to the page sockets watching each terminal."""

    def device_infos(self) -> list[DeviceInfo]:
        links = self.devices
        return [
            DeviceInfo(
                device_id=d,
                name=links.names.get(d, d),
                local=d == links.local_device_id,
                address=links.hosts.get(d),
            )
            for d in links.online()
        ]


def hub_of(request: Request) -> HubContext:
    """The app's :class:`HubContext`, from a request."""
    ctx = request.app.state.hub
    assert isinstance(ctx, HubContext)
    return ctx


async def _hub_dependency(request: Request) -> HubContext:
    # ``async`` because it never blocks: FastAPI runs a plain ``def`` dependency on its
    # thread pool, one thread hop for every request of every route.
    return hub_of(request)


Hub = Annotated[HubContext, Depends(_hub_dependency)]
"""Route parameter type: ``def route(ctx: Hub)`` receives the app's :class:`HubContext`."""
