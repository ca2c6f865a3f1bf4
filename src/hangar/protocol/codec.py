"""Decoding wire messages once, strictly, with errors that name the field.

:class:`Wire` is the base of every request and response: keyword-only fields, camelCase JSON
names, unknown fields refused, defaults left out when encoding. :func:`decode` turns a JSON
payload (already parsed, or raw bytes) into one and raises :class:`InvalidRequest` — HTTP 422
``invalid_request`` with ``details.problems [{field, problem}]``, the hub's validation shape —
naming the field and never echoing the offending value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

import msgspec

from hangar.errors import UsageError

T = TypeVar("T")

MAX_ID_CHARS = 200
"""Ids (device, task, batch, cursor) longer than this are refused."""


class Wire(
    msgspec.Struct, kw_only=True, forbid_unknown_fields=True, omit_defaults=True, rename="camel"
):
    """Base of every message on the executor RPC surface."""


@dataclass(eq=False)
class InvalidRequest(UsageError):
    """A request whose shape or types are wrong (a missing, unknown or mistyped field)."""

    problems: list[dict[str, str]] = field(default_factory=list)
    code: ClassVar[str] = "invalid_request"
    http_status: ClassVar[int] = 422

    def render(self) -> str:
        if self.message:
            return self.message
        first = self.problems[0] if self.problems else {"field": "", "problem": "invalid"}
        return f"{first['field'] or 'request'}: {first['problem']}"

    def details(self) -> dict[str, Any]:
        return {"problems": self.problems}


_AT = re.compile(r" - at `\$(?P<path>[^`]*)`$")
_NAMED = re.compile(r"field `(?P<name>[^`]{0,100})`")


def _problem(exc: msgspec.ValidationError | msgspec.DecodeError) -> dict[str, str]:
    text = str(exc)
    match = _AT.search(text)
    path = match.group("path").lstrip(".") if match else ""
    problem = text[: match.start()] if match else text
    named = _NAMED.search(problem)
    if named and not path:
        path = named.group("name")
    elif named and "missing required field" in problem:
        path = f"{path}.{named.group('name')}"
    return {"field": path, "problem": problem[:200]}


def decode(kind: type[T], data: Any) -> T:
    """``data`` (parsed JSON) as ``kind``; :class:`InvalidRequest` when it does not fit."""
    try:
        return msgspec.convert(data, kind, strict=True)
    except msgspec.ValidationError as exc:
        raise InvalidRequest(problems=[_problem(exc)]) from None


def decode_json(kind: type[T], raw: bytes) -> T:
    """Raw JSON bytes as ``kind`` (one pass, no intermediate dicts)."""
    try:
        return msgspec.json.decode(raw or b"{}", type=kind, strict=True)
    except msgspec.ValidationError as exc:
        raise InvalidRequest(problems=[_problem(exc)]) from None
    except msgspec.DecodeError:
        raise InvalidRequest(
            problems=[{"field": "", "problem": "the body is not valid JSON"}]
        ) from None


def to_json(value: Any) -> Any:
    """``value`` (a struct, or JSON-like data holding structs) as plain JSON data."""
    return msgspec.to_builtins(value)
