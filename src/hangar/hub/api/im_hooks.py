"""IM command webhooks: ``/notify on|off|status`` and ``/通知 开|关|状态`` from a chat (RW-326).

Two forms, each authenticated by a shared secret and a timestamp no older than five minutes
(a replayed request is refused):

- ``POST /hooks/im/slack`` — a Slack slash command (``application/x-www-form-urlencoded``
  with ``command`` and ``text``), signed as Slack signs: ``X-Slack-Signature: v0=<hex>`` =
  HMAC-SHA256(signing secret, ``v0:<X-Slack-Request-Timestamp>:<body>``). The answer is
  Slack's ``{"response_type": "ephemeral", "text": …}``.
- ``POST /hooks/im/command`` — a generic JSON form ``{"text": "/notify on"}`` (or
  ``{"command": "/notify", "text": "on"}``), signed ``X-Hangar-Signature: v1=<hex>`` =
  HMAC-SHA256(secret, ``<X-Hangar-Timestamp>.<body>``). The answer is ``{"text", "enabled"}``.

A webhook whose secret is not configured answers 404; a bad or stale signature 401.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from hangar.hub.api.errors import error_response
from hangar.hub.context import HubContext, hub_of
from hangar.hub.notify.commands import USAGE, parse

router = APIRouter(prefix="/hooks/im", include_in_schema=False)

MAX_BODY = 64 * 1024
MAX_SKEW = 300


def _fresh(timestamp: str) -> bool:
    try:
        return abs(time.time() - int(timestamp)) <= MAX_SKEW
    except ValueError:
        return False


def _signed(secret: str, message: str, signature: str, prefix: str) -> bool:
    expected = prefix + hmac.new(secret.encode(), message.encode(), hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), signature.encode())


async def _body(request: Request) -> bytes | None:
    body = await request.body()
    return body if len(body) <= MAX_BODY else None


async def _run(ctx: HubContext, text: str, command: str | None) -> tuple[str, bool] | None:
    notifications = ctx.notifications
    parsed = parse(text, command)
    if notifications is None or parsed is None:
        return None
    reply = await run_in_threadpool(notifications.command, parsed)
    enabled = (await run_in_threadpool(notifications.status))["enabled"]
    return reply, bool(enabled)


@router.post("/slack")
async def slack(request: Request) -> Response:
    ctx = hub_of(request)
    secret = ctx.notifications.slack_secret if ctx.notifications else ""
    if not secret:
        return error_response(404, "not_found", "the Slack command webhook is not configured")
    body = await _body(request)
    if body is None:
        return error_response(413, "too_large", "request body too large")
    stamp = request.headers.get("x-slack-request-timestamp", "")
    signature = request.headers.get("x-slack-signature", "")
    text = body.decode("utf-8", "replace")
    if not _fresh(stamp) or not _signed(secret, f"v0:{stamp}:{text}", signature, "v0="):
        return error_response(401, "unauthorized", "bad or stale Slack signature")
    form = {k: v[0] for k, v in parse_qs(text).items()}
    answer = await _run(ctx, form.get("text", ""), form.get("command", ""))
    reply = answer[0] if answer is not None else USAGE["en"]
    return JSONResponse({"response_type": "ephemeral", "text": reply})


@router.post("/command")
async def command(request: Request) -> Response:
    ctx = hub_of(request)
    secret = ctx.notifications.webhook_secret if ctx.notifications else ""
    if not secret:
        return error_response(404, "not_found", "the IM command webhook is not configured")
    body = await _body(request)
    if body is None:
        return error_response(413, "too_large", "request body too large")
    stamp = request.headers.get("x-hangar-timestamp", "")
    signature = request.headers.get("x-hangar-signature", "")
    text = body.decode("utf-8", "replace")
    if not _fresh(stamp) or not _signed(secret, f"{stamp}.{text}", signature, "v1="):
        return error_response(401, "unauthorized", "bad or stale signature")
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("text", ""), str):
        return error_response(422, "invalid_request", 'expected {"text": "/notify on"}')
    name = data.get("command")
    answer = await _run(ctx, str(data.get("text", "")), name if isinstance(name, str) else None)
    if answer is None:
        return JSONResponse({"text": USAGE["en"], "enabled": None}, status_code=400)
    return JSONResponse({"text": answer[0], "enabled": answer[1]})
