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
from hangar.hub.runtime_work import DeviceInfo
from hangar.hub.store.workspaces import Workspace


@dataclass
class HubContext:
    engine: Engine
    workspace: Workspace
    devices: DeviceLinks
    auth: Authenticator
    events: EventBus
    extra: dict[str, Any] = field(default_factory=dict)

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
    """The FastAPI dependency that hands a route its :class:`HubContext`."""
    ctx = request.app.state.hub
    assert isinstance(ctx, HubContext)
    return ctx


Hub = Annotated[HubContext, Depends(hub_of)]
"""Route parameter type: ``def route(ctx: Hub)`` receives the app's :class:`HubContext`."""
