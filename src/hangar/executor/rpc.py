"""Shared pieces of the executor's RPC surface: payload readers and the method error.

Handlers take ``(executor, payload)`` and return a JSON-ready ``dict``. Bad payloads raise
:class:`hangar.errors.UsageError` (code ``bad_request``); unknown methods raise
:class:`MethodNotSupportedError` (code ``not_supported``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from hangar.errors import HangarError, UsageError

T = TypeVar("T")


@dataclass(eq=False)
class MethodNotSupportedError(HangarError):
    method: str = ""
    code: ClassVar[str] = "not_supported"
    http_status: ClassVar[int] = 501

    def render(self) -> str:
        return f"executor method not supported: {self.method}"

    def details(self) -> dict[str, Any]:
        return {"method": self.method}


def field(payload: dict[str, Any], name: str, kind: type[T], default: T | None = None) -> T | None:
    """``payload[name]`` checked against ``kind``; missing or ``null`` gives ``default``."""
    value = payload.get(name)
    if value is None:
        return default
    if kind is int and isinstance(value, bool):
        raise UsageError(f"{name} must be an integer")
    if not isinstance(value, kind):
        raise UsageError(f"{name} must be of type {kind.__name__}")
    return value


def required(payload: dict[str, Any], name: str, kind: type[T]) -> T:
    value = field(payload, name, kind)
    if value is None or value == "":
        raise UsageError(f"{name} is required")
    return value
