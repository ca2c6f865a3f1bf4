"""Request bodies decoded once, strictly, with msgspec: the hub's edge for typed wires.

``Annotated[T, json_body(T)]`` in a route signature reads the body and decodes it into the
Struct ``T`` (422 ``invalid_request`` naming the field when it does not fit: no ``"50"`` for an
integer, no unknown fields). :func:`body_schema` publishes ``T``'s JSON Schema in OpenAPI.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from fastapi import Depends
from starlette.requests import Request

from hangar.protocol.codec import decode_json

T = TypeVar("T")


def json_body(kind: type[T]) -> Any:
    """A FastAPI dependency that decodes the request body as ``kind``."""

    async def read(request: Request) -> T:
        return decode_json(kind, await request.body())

    return Depends(read)


def body_schema(kind: type[Any]) -> dict[str, Any]:
    """``openapi_extra`` describing ``kind`` as the JSON request body."""
    schema = msgspec.json.schema(kind)
    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": _inline(schema, schema.get("$defs", {}))}},
        }
    }


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """``node`` with ``#/$defs/…`` references replaced by their definitions (request bodies are
    small and not recursive)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inline(defs[ref.removeprefix("#/$defs/")], defs)
        return {k: _inline(v, defs) for k, v in node.items() if k != "$defs"}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node
