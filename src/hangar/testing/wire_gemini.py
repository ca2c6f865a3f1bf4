"""The Gemini API (``generativelanguage``, as ``@google/genai`` speaks it) for the fake model.

Routes ``POST /v1beta/models/<model>:streamGenerateContent?alt=sse`` (SSE: ``data:`` lines, no
event names, each a ``GenerateContentResponse``) and ``…:generateContent`` (one JSON
response). A request is ``{contents: [{role: user|model, parts: [{text} | {functionCall} |
{functionResponse}]}], systemInstruction?, tools?: [{functionDeclarations: [{name,
parameters | parametersJsonSchema}]}], generationConfig?}``; a reply streams its text in
small ``text`` parts, then a ``functionCall`` part (``{id, name, args}``), and the last chunk
carries ``finishReason: STOP`` and ``usageMetadata``. Errors are Google's ``{error: {code,
message, status}}``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from hangar.testing.model_reply import MODEL, Reply, SseEvent, deltas
from hangar.testing.tool_mapping import OfferedTool

ROUTE = re.compile(r"^/v1(?:beta|alpha)?/models/([^/:]+):(streamGenerateContent|generateContent)$")
STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


def gemini_route(path: str) -> tuple[str, bool] | None:
    """``(model, streamed)`` for a Gemini content route, else ``None``."""
    match = ROUTE.match(path)
    return None if match is None else (match.group(1), match.group(2).startswith("stream"))


def gemini_tools(body: Mapping[str, Any]) -> list[OfferedTool]:
    tools = []
    for group in body.get("tools") or []:
        if not isinstance(group, Mapping):
            continue
        for declaration in group.get("functionDeclarations") or []:
            if isinstance(declaration, Mapping) and "name" in declaration:
                schema = declaration.get("parametersJsonSchema") or declaration.get("parameters")
                tools.append(OfferedTool(str(declaration["name"]), schema or {}))
    return tools


def _chunk(parts: list[dict[str, Any]], model: str, finish: bool, reply: Reply) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    chunk: dict[str, Any] = {"candidates": [candidate], "modelVersion": model,
                             "responseId": f"resp_{reply.reply_id}"}  # fmt: skip
    if finish:
        candidate["finishReason"] = "STOP"
        inp, out = reply.usage["input"], reply.usage["output"]
        chunk["usageMetadata"] = {"promptTokenCount": inp, "candidatesTokenCount": out,
                                  "totalTokenCount": inp + out}  # fmt: skip
    return chunk


def _parts(reply: Reply) -> list[list[dict[str, Any]]]:
    """The reply's parts, one list per streamed chunk."""
    chunks: list[list[dict[str, Any]]] = []
    if reply.reasoning is not None:
        chunks.extend([{"text": piece, "thought": True}] for piece in deltas(reply.reasoning))
    if reply.text is not None:
        chunks.extend([{"text": piece}] for piece in deltas(reply.text))
    if reply.tool is not None:
        call = {"id": reply.tool.call_id, "name": reply.tool.name, "args": reply.tool.arguments}
        chunks.append([{"functionCall": call}])
    return chunks or [[{"text": ""}]]


def gemini_stream(reply: Reply, model: str = MODEL) -> list[SseEvent]:
    chunks = _parts(reply)
    last = len(chunks) - 1
    return [(None, _chunk(parts, model, i == last, reply)) for i, parts in enumerate(chunks)]


def gemini_response(reply: Reply, model: str = MODEL) -> dict[str, Any]:
    """One response: each part whole (a thought, the text, the call)."""
    parts: list[dict[str, Any]] = []
    if reply.reasoning is not None:
        parts.append({"text": reply.reasoning, "thought": True})
    if reply.text is not None:
        parts.append({"text": reply.text})
    parts.extend(p for chunk in _parts(Reply(reply.reply_id, tool=reply.tool)) for p in chunk)
    return _chunk([p for p in parts if p != {"text": ""}] or [{"text": ""}], model, True, reply)


def gemini_error(status: int, message: str) -> dict[str, Any]:
    return {"error": {"code": status, "message": message, "status": STATUS.get(status, "UNKNOWN")}}
