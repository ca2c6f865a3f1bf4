"""How the hub reaches a device's executor: one small interface, one call per RPC.

The hub never stores runtime tasks (RW-002); it asks the device. :class:`ExecutorLink` is the
seam: :class:`InProcessExecutorLink` calls this device's executor in the same process (single
user mode); a WebSocket link to a remote executor implements the same methods later. RPC names
and the typed requests and responses are :mod:`hangar.protocol`'s, shared by both ends: in
process the struct itself is handed over, over a wire it is encoded once and decoded once.

An executor that does not know a method raises :class:`RpcNotSupported` (HTTP 501
``not_supported``), never fake data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from hangar.errors import HangarError
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


@dataclass
class DeviceLinks:
    """The executors this hub can reach, by device id; ``local_device_id`` is this machine."""

    local_device_id: str
    links: dict[str, ExecutorLink]
    names: dict[str, str]
    hosts: dict[str, str] = field(default_factory=dict)
    """Non-loopback address of each remote device, when known (RW-046/047)."""

    def link(self, device_id: str) -> ExecutorLink:
        try:
            return self.links[device_id]
        except KeyError:
            raise DeviceUnavailable(device_id=device_id) from None

    def close(self) -> None:
        """Close every link (on hub shutdown)."""
        for link in self.links.values():
            link.close()

    def online(self) -> list[str]:
        """Online devices, the local one first."""
        return sorted(self.links, key=lambda d: (d != self.local_device_id, self.names.get(d, d)))


def _is_instance(value: Any, expected: Any) -> bool:
    origin = getattr(expected, "__origin__", None)  # dict[str, Any] and the like
    return isinstance(value, origin if origin is not None else expected)
