"""The executor's RPC error for a method it does not serve.

Handlers take ``(executor, request)`` with a typed request from :mod:`hangar.protocol` and
return a typed response; requests that do not fit raise
:class:`~hangar.protocol.codec.InvalidRequest` (HTTP 422 ``invalid_request``) when decoded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from hangar.errors import HangarError
from hangar.executor.core import ExecutorCore

Handler = Callable[[ExecutorCore, Any], Any]
"""``(executor, typed request) -> typed response``."""


@dataclass(eq=False)
class MethodNotSupportedError(HangarError):
    method: str = ""
    code: ClassVar[str] = "not_supported"
    http_status: ClassVar[int] = 501

    def render(self) -> str:
        return f"executor method not supported: {self.method}"

    def details(self) -> dict[str, Any]:
        return {"method": self.method}
