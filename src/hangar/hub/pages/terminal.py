"""``/ui/terminal``: the web UI's terminal socket, one per open terminal (RW-253..258).

Terminal access is a shell on the device, so the handshake is refused (HTTP 403, before any
upgrade) unless **all** of these hold:

- terminals are allowed (:class:`~hangar.hub.terminals.TerminalAccess`: a loopback bind, or
  the ``remote_terminal`` setting);
- the ``Origin`` header names this hub's own origin (same scheme, host and port as the
  request's ``Host``);
- the browser holds a valid session cookie (only the owner's logged-in browser: the bearer
  token is not accepted here);
- the offered subprotocols are ``hangar.terminal.v1`` and ``csrf.<this session's CSRF token>``
  (a browser cannot set headers on a WebSocket; the subprotocol carries it).

Then the first frame must be ``open`` (JSON text, within 10 s): ``{type: "open", deviceId,
workspacePath, localTaskId?, terminalId?, offset?, cols?, rows?}``. The hub asks *that*
device's executor for the terminal (``runtime.terminal.open``; never another device,
RW-254), answers ``{type: "opened", …TerminalInfo}`` and then sends the output as binary
frames, from ``offset`` (what a reattaching page already shows; default: everything the
executor still keeps). Later client frames: ``{type: "input", data}``, ``{type: "resize",
cols, rows}``, ``{type: "close"}`` (ends the shell). Server text frames: ``{type: "exit",
exitCode}``, ``{type: "notice", message}`` (output was lost), ``{type: "error", code,
message}`` (then the socket closes with 4400/4404/4409/4500). Closing the socket leaves the
shell running for the page to reattach.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import msgspec
from fastapi import APIRouter
from starlette.websockets import WebSocket, WebSocketDisconnect

from hangar.errors import HangarError
from hangar.hub.auth import SESSION_COOKIE
from hangar.hub.context import HubContext
from hangar.hub.terminals import Gap, TerminalStream
from hangar.protocol import methods as m
from hangar.protocol import terminal as term
from hangar.protocol.codec import InvalidRequest, Wire, decode_json, to_json
from hangar.protocol.tasks import Id
from hangar.protocol.worktrees import PathText

log = logging.getLogger("hangar.hub.terminal")
router = APIRouter(include_in_schema=False)

SUBPROTOCOL = "hangar.terminal.v1"
CSRF_PREFIX = "csrf."
OPEN_TIMEOUT = 10.0
MAX_FRAME = 256 * 1024
SETTLE = 1.0
REPORT_EVERY = term.FLOW_WINDOW // 4
DRAIN_SECONDS = 5.0
"""How long the frames a page sent before it left may take to be carried out."""
"""The socket tells the device what it took each time this many more bytes went out."""
"""Seconds of quiet after output before the socket checks it missed nothing at the end."""


class OpenFrame(Wire):
    type: Literal["open"]
    device_id: Id
    workspace_path: PathText
    local_task_id: Id | None = None
    terminal_id: term.TerminalId | None = None
    offset: term.Offset | None = None
    cols: term.Cols = 80
    rows: term.Rows = 24


class InputFrame(Wire, tag="input", tag_field="type"):
    data: Annotated[str, msgspec.Meta(max_length=term.MAX_INPUT_CHARS)]


class ResizeFrame(Wire, tag="resize", tag_field="type"):
    cols: term.Cols
    rows: term.Rows


class CloseFrame(Wire, tag="close", tag_field="type"):
    pass


ClientFrame = InputFrame | ResizeFrame | CloseFrame


def same_origin(origin: str | None, host: str | None, secure: bool) -> bool:
    """``origin`` is exactly this hub's own (scheme, host and port of ``Host``)."""
    if not origin or not host:
        return False
    parts = urlsplit(origin.strip())
    expected = "https" if secure else "http"
    return parts.scheme == expected and parts.netloc.lower() == host.strip().lower()


def handshake_refusal(ctx: HubContext, ws: WebSocket) -> str | None:
    """Why this handshake is refused, or ``None`` (see the module docstring)."""
    if not ctx.terminal_access.enabled:
        return "terminals are off"
    secure = ws.url.scheme == "wss"
    if not same_origin(ws.headers.get("origin"), ws.headers.get("host"), secure):
        return "foreign or missing Origin"
    session_id = ctx.auth.session_id(ws.cookies.get(SESSION_COOKIE))
    if session_id is None:
        return "no browser session"
    offered = list(ws.scope.get("subprotocols") or [])
    csrf = [p.removeprefix(CSRF_PREFIX) for p in offered if p.startswith(CSRF_PREFIX)]
    if SUBPROTOCOL not in offered or len(csrf) != 1 or not ctx.auth.csrf_ok(session_id, csrf[0]):
        return "missing or invalid CSRF token"
    return None


@router.websocket("/ui/terminal")
async def terminal_socket(ws: WebSocket) -> None:
    ctx: HubContext = ws.app.state.hub
    refusal = handshake_refusal(ctx, ws)
    if refusal is not None:
        log.warning("terminal socket refused: %s", refusal)
        await ws.close(code=1008)  # before accept: the handshake is answered 403
        return
    await ws.accept(subprotocol=SUBPROTOCOL)
    with contextlib.suppress(WebSocketDisconnect):
        await _serve(ctx, ws)


async def _fail(ws: WebSocket, code: int, error: str, message: str) -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        await ws.send_json({"type": "error", "code": error, "message": message})
        await ws.close(code=code)


def _close_code(exc: HangarError) -> int:
    return {404: 4404, 409: 4409}.get(exc.http_status, 4500 if exc.http_status >= 500 else 4400)


async def _serve(ctx: HubContext, ws: WebSocket) -> None:
    try:
        first = await asyncio.wait_for(ws.receive_text(), OPEN_TIMEOUT)
        frame = decode_json(OpenFrame, first.encode())
    except TimeoutError:
        await _fail(ws, 4408, "timeout", "no open frame within 10 s")
        return
    except InvalidRequest as exc:
        await _fail(ws, 4400, exc.code, str(exc))
        return
    request = term.OpenTerminal(
        workspace_path=frame.workspace_path,
        local_task_id=frame.local_task_id,
        terminal_id=frame.terminal_id,
        cols=frame.cols,
        rows=frame.rows,
    )
    try:
        link = ctx.devices.link(frame.device_id)
        info: term.TerminalInfo = await asyncio.to_thread(link.call, m.TERMINAL_OPEN.name, request)
    except HangarError as exc:
        await _fail(ws, _close_code(exc), exc.code, str(exc))
        return
    stream = ctx.terminals.subscribe(frame.device_id, info.terminal_id)
    flow = _Flow(link, info.terminal_id)
    stream.on_pressure = flow.want
    try:
        await ws.send_json({"type": "opened", **to_json(info)})
        start = frame.offset if info.reattached and frame.offset is not None else 0
        await flow.start(start)
        pump = _Pump(ws, link, stream, info.terminal_id, start, flow)
        await pump.replay()
        if not info.running:
            await ws.send_json({"type": "exit", "exitCode": info.exit_code})
        await _run_both(_client_frames(ws, link, info.terminal_id), pump.forward(), flow.run())
    finally:
        ctx.terminals.unsubscribe(stream)
        await flow.release()


async def _run_both(client: Any, *others: Any) -> None:
    """Run until either side ends (the page left, or the client asked to close).

    A page that types and leaves at once may be seen leaving by the output side first (a
    send to it fails) while the frames it sent before its close still wait to be read: the
    client side then goes on until it meets the close, for at most :data:`DRAIN_SECONDS`,
    so input typed right before leaving still reaches the shell."""
    reader = asyncio.ensure_future(client)
    tasks = [reader, *(asyncio.ensure_future(job) for job in others)]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        left = False
        for task in done:
            if not task.cancelled() and task.exception() is not None:
                exc = task.exception()
                if not isinstance(exc, WebSocketDisconnect):
                    raise exc
                left = True
        if left and not reader.done():
            await asyncio.wait([reader], timeout=DRAIN_SECONDS)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


class _Flow:
    """This socket's flow control on the device, one call at a time: the hold asked while
    the socket's queue is long, and the window of output it took (``consumed``, reported at
    open and then every :data:`REPORT_EVERY` bytes), so the device never has more than
    :data:`~hangar.protocol.terminal.FLOW_WINDOW` bytes on the way to it. Both are renewed
    while they last (the device lets an unrenewed one expire)."""

    def __init__(self, link: Any, terminal_id: str) -> None:
        self.link = link
        self.terminal_id = terminal_id
        self.holder = secrets.token_hex(8)
        self.wanted = False
        self.applied = False
        self.consumed: int | None = None
        self.reported: int | None = None
        self.changed = asyncio.Event()

    def want(self, held: bool) -> None:
        self.wanted = held
        self.changed.set()

    def took(self, offset: int) -> None:
        """The socket was sent the output up to ``offset``."""
        self.consumed = offset
        if self.reported is not None and offset - self.reported >= REPORT_EVERY:
            self.changed.set()

    async def start(self, offset: int) -> None:
        """Open this socket's window at ``offset`` before any of its input reaches the shell."""
        self.consumed = offset
        await self._apply(False)

    async def _apply(self, held: bool) -> None:
        consumed = self.consumed
        request = term.TerminalFlow(
            terminal_id=self.terminal_id, holder=self.holder, paused=held, consumed=consumed
        )
        try:
            await asyncio.to_thread(self.link.call, m.TERMINAL_FLOW.name, request)
        except HangarError:
            return  # an executor without flow control: the relay's replay still covers
        self.applied, self.reported = held, consumed

    async def run(self) -> None:
        renew = term.FLOW_HOLD_SECONDS / 3
        while True:
            lasting = self.applied or self.reported is not None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), renew if lasting else None)
            self.changed.clear()
            await self._apply(self.wanted)

    async def release(self) -> None:
        if self.applied or self.wanted or self.reported is not None:
            self.wanted, self.consumed = False, None
            await self._apply(False)


class _Pump:
    """Sends one terminal's output to the socket in stream order, with no gap or repeat."""

    def __init__(
        self,
        ws: WebSocket,
        link: Any,
        stream: TerminalStream,
        terminal_id: str,
        start: int,
        flow: _Flow,
    ) -> None:
        self.ws = ws
        self.link = link
        self.stream = stream
        self.terminal_id = terminal_id
        self.flow = flow
        self.sent = start
        """The offset of the next byte the page has not been sent."""

    async def replay(self) -> None:
        request = term.TerminalReplay(terminal_id=self.terminal_id, offset=self.sent)
        try:
            chunk = await asyncio.to_thread(self.link.call, m.TERMINAL_REPLAY.name, request)
        except HangarError as exc:
            await self.ws.send_json({"type": "notice", "message": str(exc)})
            return
        if chunk.truncated:
            lost = chunk.offset - self.sent
            await self.ws.send_json(
                {"type": "notice", "message": f"{lost} bytes of earlier output are not kept"}
            )
        await self._send(chunk.offset, chunk.data)

    async def _send(self, offset: int, data: bytes) -> None:
        end = offset + len(data)
        if end <= self.sent:
            return  # already sent (a replay overlapping queued events)
        if offset > self.sent:
            self.sent = offset  # the bytes before were not kept: the notice said so
        await self.ws.send_bytes(data[self.sent - offset :])
        self.sent = end
        self.flow.took(end)

    async def forward(self) -> None:
        settled = True
        while True:
            try:
                item = await asyncio.wait_for(self.stream.next(), None if settled else SETTLE)
            except TimeoutError:
                # Output paused: if its last events were lost on the way, nothing later would
                # reveal the gap, so ask once what the device has after what was sent.
                settled = True
                await self.replay()
                continue
            settled = False
            if isinstance(item, Gap):
                await self.replay()
            elif isinstance(item, term.TerminalExit):
                if item.offset > self.sent:
                    await self.replay()
                await self.ws.send_json({"type": "exit", "exitCode": item.exit_code})
            elif item.offset > self.sent:  # an event was lost on the way: fetch the rest
                await self.replay()
                await self._send(item.offset, item.data)
            else:
                await self._send(item.offset, item.data)


async def _client_frames(ws: WebSocket, link: Any, terminal_id: str) -> None:
    decoder = msgspec.json.Decoder(ClientFrame)
    while True:
        text = await ws.receive_text()
        if len(text) > MAX_FRAME:
            await _fail(ws, 4400, "frame_too_large", "a frame is larger than 256 KiB")
            return
        try:
            frame = decoder.decode(text)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            await _fail(ws, 4400, "invalid_request", f"bad frame: {exc}")
            return
        try:
            if isinstance(frame, InputFrame):
                req: Any = term.TerminalInput(terminal_id=terminal_id, data=frame.data)
                await asyncio.to_thread(link.call, m.TERMINAL_INPUT.name, req)
            elif isinstance(frame, ResizeFrame):
                req = term.TerminalResize(terminal_id=terminal_id, cols=frame.cols, rows=frame.rows)
                await asyncio.to_thread(link.call, m.TERMINAL_RESIZE.name, req)
            else:
                req = term.TerminalRef(terminal_id=terminal_id)
                await asyncio.to_thread(link.call, m.TERMINAL_CLOSE.name, req)
                await ws.close(code=1000)
                return
        except HangarError as exc:
            await ws.send_json({"type": "error", "code": exc.code, "message": str(exc)})
