"""The hub's side of device terminals: who may open one, and where their output goes.

:class:`TerminalAccess` decides whether the web UI may open terminals at all: a terminal is a
shell on the device, so it is on only while the hub listens on a loopback address, unless
the ``remote_terminal`` setting enables it for a hub bound elsewhere (``--allow-remote``).

:class:`TerminalRelay` carries a device's terminal events (``runtime.terminal.output`` and
``runtime.terminal.exit``, :mod:`hangar.protocol.terminal`) to the page sockets that watch
that terminal, and to nobody else: terminal output never goes to the SSE bus. A slow socket
holds at most :data:`STREAM_LIMIT` bytes: past :data:`HOLD_ABOVE` it asks the device to hold
the terminal's output (``runtime.terminal.flow``: the shell's writes wait, as at a terminal
nobody reads) until it drained, and each socket reports what it took, so the device never
runs more than a window (``FLOW_WINDOW``, below :data:`STREAM_LIMIT`) ahead of it, however
long the way is (a remote device's connection); should it still overflow, the relay drops
chunks and tells the socket once, which then asks the executor to replay what it missed (the
events carry stream offsets). :func:`device_event_sink` is what the hub does with every event
a device sends.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hangar.protocol import terminal as term
from hangar.protocol.codec import InvalidRequest, decode

STREAM_LIMIT = 1024 * 1024
HOLD_ABOVE = STREAM_LIMIT // 4
"""Past this many queued bytes the socket asks the device to hold the terminal's output."""
RELEASE_BELOW = STREAM_LIMIT // 16


@dataclass(frozen=True)
class TerminalAccess:
    enabled: bool = True
    reason: str = ""
    """Why terminals are off (shown in the page)."""

    @classmethod
    def for_bind(cls, loopback: bool, remote_terminal: bool) -> TerminalAccess:
        if loopback or remote_terminal:
            return cls(enabled=True)
        return cls(
            enabled=False,
            reason="terminals are off while the hub listens on a non-loopback address; "
            "set remote_terminal = true (HANGAR_REMOTE_TERMINAL=1) to allow them",
        )


class Gap:
    """Chunks were dropped for this socket: replay from the last offset it sent."""


StreamItem = term.TerminalOutput | term.TerminalExit | Gap


@dataclass(eq=False)
class TerminalStream:
    """One socket's subscription to one terminal of one device."""

    device_id: str
    terminal_id: str
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[StreamItem] = field(default_factory=asyncio.Queue)
    pending: int = 0
    overflowed: bool = False
    on_pressure: Callable[[bool], None] | None = None
    """Told ``True`` when the queue passes :data:`HOLD_ABOVE`, ``False`` once it drained
    below :data:`RELEASE_BELOW` (the socket then holds and releases the device's output)."""
    pressed: bool = False

    def _press(self, pressed: bool) -> None:
        if pressed != self.pressed and self.on_pressure is not None:
            self.pressed = pressed
            self.on_pressure(pressed)

    def offer(self, item: StreamItem) -> None:
        """On the socket's loop: queue ``item`` unless too much is waiting."""
        size = len(item.data) if isinstance(item, term.TerminalOutput) else 0
        if self.pending + size > HOLD_ABOVE:
            self._press(True)
        if self.overflowed or self.pending + size > STREAM_LIMIT:
            if not self.overflowed:
                self.overflowed = True
                self.queue.put_nowait(Gap())
            if isinstance(item, term.TerminalExit):
                self.queue.put_nowait(item)
            return
        self.pending += size
        self.queue.put_nowait(item)

    async def next(self) -> StreamItem:
        item = await self.queue.get()
        if isinstance(item, term.TerminalOutput):
            self.pending -= len(item.data)
        elif isinstance(item, Gap):
            self.overflowed = False
        if self.pending < RELEASE_BELOW:
            self._press(False)
        return item


class TerminalRelay:
    """Thread-safe fan-out of terminal events to the sockets subscribed to them."""

    def __init__(self) -> None:
        self._streams: dict[tuple[str, str], list[TerminalStream]] = {}
        self._lock = threading.Lock()

    def subscribe(self, device_id: str, terminal_id: str) -> TerminalStream:
        """A stream for the calling event loop (subscribe before asking for a replay)."""
        stream = TerminalStream(device_id, terminal_id, asyncio.get_running_loop())
        with self._lock:
            self._streams.setdefault((device_id, terminal_id), []).append(stream)
        return stream

    def unsubscribe(self, stream: TerminalStream) -> None:
        key = (stream.device_id, stream.terminal_id)
        with self._lock:
            streams = [s for s in self._streams.get(key, []) if s is not stream]
            if streams:
                self._streams[key] = streams
            else:
                self._streams.pop(key, None)

    def subscribers(self, device_id: str, terminal_id: str) -> int:
        with self._lock:
            return len(self._streams.get((device_id, terminal_id), []))

    def deliver(self, device_id: str, event: str, data: dict[str, Any]) -> None:
        """Hand one terminal event of ``device_id`` to its subscribers (any thread)."""
        item: StreamItem
        try:
            if event == term.TERMINAL_OUTPUT:
                item = decode(term.TerminalOutput, data)
            else:
                item = decode(term.TerminalExit, data)
        except InvalidRequest:
            return  # a device that sends garbage only loses its own output
        with self._lock:
            targets = list(self._streams.get((device_id, item.terminal_id), []))
        for stream in targets:
            try:
                stream.loop.call_soon_threadsafe(stream.offer, item)
            except RuntimeError:  # that socket's loop has closed
                self.unsubscribe(stream)


def device_event_sink(
    device_id: str, relay: TerminalRelay, publish: Callable[[str, dict[str, Any]], object]
) -> Callable[[str, dict[str, Any]], None]:
    """The sink for the events of one device's executor: terminal events to ``relay``,
    every other event to the SSE bus (``publish``)."""

    def sink(event: str, data: dict[str, Any]) -> None:
        if event in term.TERMINAL_EVENTS:
            relay.deliver(device_id, event, data)
        else:
            publish(event, data)

    return sink
