"""One executor's WebSocket on the hub: handshake, then frames until it closes.

1. The device token comes in ``Authorization: Bearer …``; an unknown one closes with 4401,
   a revoked one with 4403.
2. The first frame must be ``hello`` within 10 s (else 4408), of protocol version 1 (else
   4426). The registration is claimed for the hello's ``deviceId``
   (:func:`~.registry.claim_connection`): a token bound to another machine is refused (4403),
   a device already connected elsewhere too (4409).
3. ``welcome`` goes back; answers go to the link, ``status`` to the database, events to the
   hub (``runtime.changed`` and friends to SSE, ``runtime.tasks.updated`` to notifications).
4. A frame that does not decode closes the connection with 4400 and the problem as reason;
   one larger than 1 MiB is closed by the server with 1009. Other devices are unaffected.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import msgspec
from starlette.websockets import WebSocket, WebSocketState

from hangar.hub.devices import registry
from hangar.hub.devices.directory import DeviceDirectory
from hangar.hub.devices.ws_link import WebSocketLink
from hangar.protocol import frames as f

log = logging.getLogger("hangar.hub.devices")

HELLO_TIMEOUT = 10.0
DeviceEvent = Callable[[str, str, dict[str, Any]], None]
"""``(device_id, event name, data)``: what the hub does with a device's event."""


def _bearer(ws: WebSocket) -> str:
    scheme, _, value = ws.headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" else ""


async def _close(ws: WebSocket, code: int, reason: str) -> None:
    if ws.application_state == WebSocketState.CONNECTED:
        with contextlib.suppress(RuntimeError):  # already closing
            await ws.close(code, reason.encode()[:120].decode("utf-8", "ignore"))


async def serve_connection(
    ws: WebSocket, directory: DeviceDirectory, on_event: DeviceEvent
) -> None:
    """Serve one executor connection until it closes (see the module docstring)."""
    engine = directory.engine
    token = _bearer(ws)
    await ws.accept()
    registration = await asyncio.to_thread(registry.authenticate, engine, token) if token else None
    if registration is None:
        await _close(ws, f.CLOSE_BAD_TOKEN, "unknown device token")
        return
    if registration.revoked:
        await _close(ws, f.CLOSE_REFUSED, "this device token was revoked")
        return
    try:
        first = await asyncio.wait_for(ws.receive(), HELLO_TIMEOUT)
    except TimeoutError:
        await _close(ws, f.CLOSE_HELLO_TIMEOUT, "no hello within 10 s")
        return
    if first["type"] == "websocket.disconnect":
        return
    try:
        hello, _ = f.decode(first.get("bytes") or first.get("text") or b"")
    except f.MalformedFrame as exc:
        await _close(ws, f.CLOSE_MALFORMED, str(exc))
        return
    if not isinstance(hello, f.Hello):
        await _close(ws, f.CLOSE_MALFORMED, "the first frame must be hello")
        return
    if hello.protocol != f.PROTOCOL_VERSION:
        await _close(ws, f.CLOSE_PROTOCOL, f"protocol {hello.protocol} is not supported")
        return
    client_ip = ws.client.host if ws.client else None
    try:
        claim = await asyncio.to_thread(
            registry.claim_connection,
            engine,
            registration,
            device_id=hello.device_id,
            replica_id=directory.presence.id,
            client_ip=client_ip,
            transfer_host=hello.transfer_host,
            device_name=hello.name,
            version=hello.version,
            alive=directory.holds,
        )
    except registry.ConnectionRefused as exc:
        await _close(ws, exc.close_code, str(exc))
        return
    lock = asyncio.Lock()

    async def send(frame: bytes) -> None:
        async with lock:
            await ws.send_bytes(frame)

    async def close(code: int, reason: str) -> None:
        await _close(ws, code, reason)

    link = WebSocketLink(
        claim.device_id,
        asyncio.get_running_loop(),
        send,
        close,
        timeouts=directory.timeouts,
        supported=frozenset(hello.methods) if hello.methods else None,
    )
    directory.attach(claim, link)
    reason = "connection lost"
    try:
        welcome = f.Welcome(device_id=claim.device_id, name=claim.name, client_ip=client_ip)
        await send(f.encode(welcome))
        log.info("device %s (%s) connected from %s", claim.name, claim.device_id, client_ip)
        await asyncio.to_thread(
            on_event, claim.device_id, "devices.changed", {"reason": "connected"}
        )
        reason = await _frames(ws, link, directory, claim, on_event)
    except Exception as exc:
        reason = f"connection failed: {type(exc).__name__}"
        raise
    finally:
        link.fail_all(f"device {claim.name!r} disconnected ({reason})")
        await asyncio.to_thread(directory.detach, claim)
        log.info("device %s disconnected: %s", claim.name, reason)
        await asyncio.to_thread(
            on_event, claim.device_id, "devices.changed", {"reason": "disconnected"}
        )


async def _frames(
    ws: WebSocket,
    link: WebSocketLink,
    directory: DeviceDirectory,
    claim: registry.Claim,
    on_event: DeviceEvent,
) -> str:
    """Handle frames until the connection ends; returns why it ended."""
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return f"closed {message.get('code', 1000)}"
        data = message.get("bytes")
        if data is None:
            await _close(ws, f.CLOSE_MALFORMED, "text frames are not part of the protocol")
            return "malformed frame"
        try:
            header, body = f.decode(data)
        except f.MalformedFrame as exc:
            await _close(ws, f.CLOSE_MALFORMED, str(exc))
            return str(exc)
        if isinstance(header, f.Result | f.Error):
            link.dispatch(header, body)
        elif isinstance(header, f.Status):
            await asyncio.to_thread(registry.set_state, directory.engine, claim, header.state)
            await asyncio.to_thread(
                on_event, claim.device_id, "devices.changed", {"reason": "state"}
            )
        elif isinstance(header, f.Event):
            try:
                payload = msgspec.json.decode(body)
            except msgspec.DecodeError:
                payload = None
            if not isinstance(payload, dict):
                log.warning("event %s from %s dropped: not a JSON object", header.name, claim.name)
                continue
            await asyncio.to_thread(on_event, claim.device_id, header.name, payload)
        else:
            await _close(ws, f.CLOSE_MALFORMED, f"unexpected {type(header).__name__} frame")
            return "malformed frame"
