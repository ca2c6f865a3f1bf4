"""How the hub reaches a device's executor: one small interface, one call per RPC.

The hub never stores runtime tasks (RW-002); it asks the device. :class:`ExecutorLink` is the
seam: :class:`InProcessExecutorLink` calls this device's executor in the same process (single
user mode); a remote executor's WebSocket link (:mod:`hangar.hub.devices.ws_link`) and a call
routed to the replica holding that socket (:mod:`hangar.hub.devices.mailbox`) implement the
same two methods. RPC names and the typed requests and responses are :mod:`hangar.protocol`'s,
shared by both ends: in process the struct itself is handed over, over a wire it is encoded
once and decoded once.

:class:`DeviceLinks` is what the routes see: the in-process links plus, when the hub accepts
remote executors, a :class:`RemoteDevices` directory (every registered device with its state;
offline ones have no link).

An executor that does not know a method raises :class:`RpcNotSupported` (HTTP 501
``not_supported``), never fake data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar, Literal, Protocol

from hangar.errors import HangarError
from hangar.protocol.codec import InvalidRequest
from hangar.protocol.methods import METHODS


@dataclass(eq=False)
class RpcNotSupported(HangarError):
    """The device's executor does not (yet) implement ``method``."""

    method: str = ""
    code: ClassVar[str] = "not_supported"
    http_status: ClassVar[int] = 501

    def render(self) -> str:
        return self.message or f"this device's executor does not support {self.method}"

    def details(self) -> dict[str, Any]:
        return {"method": self.method}


@dataclass(eq=False)
class DeviceUnavailable(HangarError):
    """The device is unknown or offline (HTTP 404 / 503)."""

    device_id: str = ""
    code: ClassVar[str] = "device_unavailable"
    http_status: ClassVar[int] = 404

    def render(self) -> str:
        return self.message or f"device {self.device_id!r} is not connected to this hub"

    def details(self) -> dict[str, Any]:
        return {"deviceId": self.device_id}


@dataclass(eq=False)
class DeviceTimeout(HangarError):
    """The device did not answer within its timeout (HTTP 504)."""

    device_id: str = ""
    method: str = ""
    seconds: float = 0.0
    code: ClassVar[str] = "device_timeout"
    http_status: ClassVar[int] = 504

    def render(self) -> str:
        return self.message or (
            f"device {self.device_id!r} did not answer {self.method} within {self.seconds:g}s"
        )

    def details(self) -> dict[str, Any]:
        return {"deviceId": self.device_id, "method": self.method, "seconds": self.seconds}


@dataclass(eq=False)
class RemoteError(HangarError):
    """An error a remote executor answered, with its own code and status
    (see :func:`remote_error`)."""

    remote_details: dict[str, Any] = field(default_factory=dict)

    def details(self) -> dict[str, Any]:
        return self.remote_details


@cache
def _remote_class(code: str, status: int) -> type[RemoteError]:
    return type(f"RemoteError_{code}", (RemoteError,), {"code": code, "http_status": status})


def remote_error(
    method: str, code: str, message: str, status: int, details: dict[str, Any]
) -> HangarError:
    """The hub-side error for a device's error answer: ``not_supported`` and
    ``invalid_request`` become their own types, anything else keeps its code and status."""
    if code == "not_supported":
        return RpcNotSupported(method=method, message=message)
    if code == "invalid_request":
        problems = details.get("problems")
        return InvalidRequest(
            message=message, problems=problems if isinstance(problems, list) else []
        )
    status = status if 400 <= status <= 599 else 502
    safe = "".join(c for c in code if c.isalnum() or c == "_")[:60] or "executor_error"
    return _remote_class(safe, status)(message=message[:2000], remote_details=details)


@dataclass(eq=False)
class RpcFailed(HangarError):
    """The executor answered with an error the hub cannot map (HTTP 502)."""

    method: str = ""
    code: ClassVar[str] = "executor_error"
    http_status: ClassVar[int] = 502

    def details(self) -> dict[str, Any]:
        return {"method": self.method}


class ExecutorLink(Protocol):
    """One device's executor as the hub sees it."""

    def call(self, method: str, request: Any) -> Any:
        """Run RPC ``method`` with its typed request; returns its typed response. Raises
        :class:`HangarError` subclasses on failure."""
        ...

    def close(self) -> None:
        """Let go of the executor (stop it, or drop the connection); idempotent."""
        ...


Handler = Callable[[str, Any], Any]


@dataclass
class InProcessExecutorLink:
    """Calls an executor's ``call(method, request)`` in this process.

    ``supported`` (when the executor publishes its method names) lets the hub answer 501
    before calling; an executor's own ``not_supported`` error for an unknown method is mapped
    to 501 as well. Other :class:`HangarError`\\ s pass through unchanged.
    """

    handler: Handler
    supported: frozenset[str] | None = None
    closer: Callable[[], None] | None = None
    """Stops the executor's background threads; called by :meth:`close`."""

    def close(self) -> None:
        if self.closer is not None:
            self.closer()
            self.closer = None

    def call(self, method: str, request: Any) -> Any:
        if self.supported is not None and method not in self.supported:
            raise RpcNotSupported(method=method)
        try:
            result = self.handler(method, request)
        except HangarError as exc:
            if exc.code == "not_supported":
                raise RpcNotSupported(method=method, message=str(exc)) from None
            raise
        expected = METHODS[method].response if method in METHODS else None
        if expected is not None and not _is_instance(result, expected):
            raise RpcFailed(method=method, message=f"{method} returned {type(result).__name__}")
        return result


State = Literal["online", "busy", "offline"]


@dataclass(frozen=True)
class DeviceState:
    """One device as the hub knows it; ``online`` and ``busy`` devices have a link."""

    device_id: str
    name: str
    state: State
    client_ip: str | None = None
    transfer_host: str | None = None


class RemoteDevices(Protocol):
    """The registered remote devices (implemented by :mod:`hangar.hub.devices`)."""

    def link(self, device_id: str) -> ExecutorLink | None:
        """A link to an online or busy device, ``None`` when it is offline or unknown."""
        ...

    def states(self) -> list[DeviceState]:
        """Every registered device with its current state."""
        ...

    def close(self) -> None: ...


@dataclass
class DeviceLinks:
    """The executors this hub can reach, by device id; ``local_device_id`` is this machine
    (empty when the hub runs no executor of its own)."""

    local_device_id: str
    links: dict[str, ExecutorLink]
    names: dict[str, str]
    hosts: dict[str, str] = field(default_factory=dict)
    """Non-loopback address of each in-process device, when known (RW-046/047)."""
    remote: RemoteDevices | None = None

    def link(self, device_id: str) -> ExecutorLink:
        found = self.links.get(device_id)
        if found is None and self.remote is not None:
            found = self.remote.link(device_id)
        if found is None:
            raise DeviceUnavailable(device_id=device_id)
        return found

    def close(self) -> None:
        """Close every link (on hub shutdown)."""
        for link in self.links.values():
            link.close()
        if self.remote is not None:
            self.remote.close()

    def states(self) -> list[DeviceState]:
        """Every device: the in-process ones (online), then the remote ones; local first."""
        found = [
            DeviceState(d, self.names.get(d, d), "online", transfer_host=self.hosts.get(d))
            for d in self.links
        ]
        if self.remote is not None:
            found += [s for s in self.remote.states() if s.device_id not in self.links]
        return sorted(found, key=lambda s: (s.device_id != self.local_device_id, s.name))

    def online(self) -> list[str]:
        """Online and busy devices, the local one first."""
        return [s.device_id for s in self.states() if s.state != "offline"]


def _is_instance(value: Any, expected: Any) -> bool:
    origin = getattr(expected, "__origin__", None)  # dict[str, Any] and the like
    return isinstance(value, origin if origin is not None else expected)
