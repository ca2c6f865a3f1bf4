"""What every route needs, built once by the app factory and kept on ``app.state.hub``."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends
from sqlalchemy.engine import Engine
from starlette.requests import Request

from hangar.hub.auth import Authenticator
from hangar.hub.events import EventBus, turn_relay
from hangar.hub.executor_link import DeviceLinks
from hangar.hub.runtime_view import RuntimeView
from hangar.hub.runtime_work import DeviceInfo, display_address
from hangar.hub.store.attachments import AttachmentStore
from hangar.hub.store.workspaces import Workspace
from hangar.hub.terminals import TerminalAccess, TerminalRelay
from hangar.protocol import events as ev
from hangar.protocol import terminal as term
from hangar.protocol.codec import InvalidRequest, decode

if TYPE_CHECKING:
    from hangar.hub.devices.directory import DeviceDirectory
    from hangar.hub.notify.service import Notifications
    from hangar.hub.object_storage import ObjectStorage

log = logging.getLogger("hangar.hub")
TURN_EVENT = "runtime.turn"


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
    fanout_timeout: float = 10.0
    """Seconds each device has to answer a list or search that fans out to every device."""
    rpc_timeout: float = 60.0
    """Seconds a device has to answer any other call."""
    directory: DeviceDirectory | None = None
    """The remote devices' directory, when this hub accepts remote executors."""
    notifications: Notifications | None = None
    object_storage: ObjectStorage | None = None
    """Where archive transfers go when no direct path between devices works."""
    public_url: str = "http://127.0.0.1:8765"
    """Where devices reach this hub (shown in the command ``hangar device add`` prints)."""

    terminal_access: TerminalAccess = field(default_factory=TerminalAccess)
    """Whether the web UI may open device terminals (off on a remote bind by default)."""
    terminals: TerminalRelay = field(default_factory=TerminalRelay)
    """Where devices' terminal output goes: to the page sockets watching each terminal."""

    def device_event(self, device_id: str, name: str, data: dict[str, Any]) -> None:
        """An event a device's executor sent (in process, or over its WebSocket): the hub
        names the device itself, never trusting the payload for it. Terminal output goes only
        to the page sockets watching that terminal of that device (never the SSE bus);
        ``runtime.tasks.updated`` goes to notifications and, as a hint, to open pages; the
        rest to open pages."""
        if name in term.TERMINAL_EVENTS:
            self.terminals.deliver(device_id, name, data)
            return
        if name == ev.TASKS_UPDATED:
            try:
                update = decode(ev.TaskUpdated, data)
            except InvalidRequest as exc:  # e.g. a workspacePath, which it must not carry
                log.warning("runtime.tasks.updated from %s dropped: %s", device_id, exc)
                return
            if not update.terminal:
                return  # running and streaming replies are ignored (RW-331)
            self.events.publish(
                ev.TASKS_UPDATED,
                {
                    "deviceId": device_id,
                    "localTaskId": update.local_task_id,
                    "status": update.status,
                    "title": update.title,
                    "updateKey": update.update_key,
                    "content": update.content[:300],
                },
            )
            if self.notifications is not None:
                self.notifications.task_updated(device_id, update)
            return
        if name == TURN_EVENT:  # a remote executor's turn: logged on arrival like a local one
            turn_relay(self.events)(name, {**data, "deviceId": device_id})
            return
        self.events.publish(name, {**data, "deviceId": device_id})
        if name == "devices.changed":
            # The list depends on which devices are online (RW-024: pages re-ask for it).
            self.events.publish(ev.RUNTIME_CHANGED, {"deviceId": device_id, "reason": "device"})

    def device_infos(self) -> list[DeviceInfo]:
        """The devices calls fan out to: online and busy ones, the local one first."""
        return [info for info in self.all_devices() if info.state != "offline"]

    def all_devices(self) -> list[DeviceInfo]:
        """Every known device, offline ones too (they contribute no tasks, RW-043)."""
        links = self.devices
        return [
            DeviceInfo(
                device_id=s.device_id,
                name=s.name,
                local=s.device_id == links.local_device_id,
                address=display_address(s.transfer_host, s.client_ip),
                state=s.state,
            )
            for s in links.states()
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
