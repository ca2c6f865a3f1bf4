"""Reading an adapter's NDJSON event stream into run messages, usage and control events.

:class:`EventReader` contract:

- lines are split on ``\\n`` with bounded memory: a line longer than ``max_line`` bytes is
  skipped without being held (counted as too long); blank lines are ignored; a last line
  without a newline is decoded like any other;
- a line that is not a valid event (not UTF-8 JSON, not an object, unknown ``type``, a field
  of the wrong type or over its limit, ``handoff_ready`` where the protocol has none) is
  skipped, counted, and noted in the run's log with the reason and its first bytes; the run
  goes on (nothing that was valid is lost);
- a message whose (``source``, ``source_key``) was already seen in this run is not reported
  again, only counted and noted (LR-159); so is a ``usage`` event with a repeated key;
- everything else goes to the :class:`EventHandler`, in stream order, on the reader's thread.
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from hangar.localrun.plugins.events import (
    HandoffReadyEvent,
    InvalidEvent,
    SessionEvent,
    UsageEvent,
    decode_event,
)
from hangar.localrun.plugins.run_log import RunLog
from hangar.model.run_messages import RunMessage, UsageEntry

MAX_LINE = 8 * 1024 * 1024
CHUNK = 256 * 1024
NOTED_EXAMPLES = 20


class EventHandler(Protocol):
    def message(self, message: RunMessage) -> None: ...
    def usage(self, entry: UsageEntry) -> None: ...
    def session(self, session_id: str) -> None: ...
    def handoff(self, event: HandoffReadyEvent) -> None: ...


@dataclass
class StreamStats:
    """What one event stream held."""

    lines: int = 0
    messages: int = 0
    usage: int = 0
    sessions: list[str] = field(default_factory=list)
    handoffs: int = 0
    invalid: int = 0
    first_invalid: str | None = None
    duplicates: int = 0
    first_duplicate: str | None = None

    def problems(self) -> list[str]:
        """One sentence per kind of trouble, for the end-of-run summary."""
        out = []
        if self.invalid:
            out.append(
                f"{self.invalid} invalid event line{'s' if self.invalid > 1 else ''} skipped "
                f"(first: {self.first_invalid})"
            )
        if self.duplicates:
            out.append(
                f"{self.duplicates} repeated source_key{'s' if self.duplicates > 1 else ''} "
                f"stored once (first: {self.first_duplicate})"
            )
        return out


def _preview(line: bytes, limit: int = 80) -> str:
    text = line[:limit].decode("utf-8", "replace")
    return repr(text + ("…" if len(line) > limit else ""))


class EventReader:
    """Decode and dispatch one adapter's events (see the module docstring)."""

    def __init__(
        self,
        handler: EventHandler,
        log: RunLog,
        *,
        provider: str,
        allow_handoff: bool,
        max_line: int = MAX_LINE,
        observer: Callable[[int, bytes], None] | None = None,
    ) -> None:
        self.handler = handler
        self.observer = observer
        self.log = log
        self.provider = provider
        self.allow_handoff = allow_handoff
        self.max_line = max_line
        self.stats = StreamStats()
        self._seen: set[tuple[str, str]] = set()
        self._seen_usage: set[str] = set()
        self._buffer = bytearray()
        self._number = 0
        self._skipping = False

    # -- one line -------------------------------------------------------------------
    def _invalid(self, number: int, reason: str, line: bytes) -> None:
        self.stats.invalid += 1
        where = f"line {number}: {reason}"
        if self.stats.first_invalid is None:
            self.stats.first_invalid = where
        if self.stats.invalid <= NOTED_EXAMPLES:
            self.log.note(f"event {where}; skipped; it starts {_preview(line)}")
        elif self.stats.invalid == NOTED_EXAMPLES + 1:
            self.log.note("more invalid event lines follow; only counted from here on")

    def _duplicate(self, number: int, key: str) -> None:
        self.stats.duplicates += 1
        where = f"line {number}: {key}"
        if self.stats.first_duplicate is None:
            self.stats.first_duplicate = where
        if self.stats.duplicates <= NOTED_EXAMPLES:
            self.log.note(f"event {where} repeats an earlier source_key; stored once")

    def feed_line(self, number: int, line: bytes) -> None:
        """Handle one complete line (without its newline)."""
        if not line.strip():
            return
        self.stats.lines += 1
        if self.observer is not None:
            self.observer(number, line)
        try:
            event = decode_event(line)
        except InvalidEvent as exc:
            self._invalid(number, str(exc), line)
            return
        if isinstance(event, UsageEvent):
            if event.source_key in self._seen_usage:
                self._duplicate(number, f"usage {event.source_key}")
                return
            self._seen_usage.add(event.source_key)
            self.stats.usage += 1
            self.handler.usage(event.to_usage(self.provider))
        elif isinstance(event, SessionEvent):
            self.stats.sessions.append(event.session_id)
            self.log.note(f"session {event.session_id}")
            self.handler.session(event.session_id)
        elif isinstance(event, HandoffReadyEvent):
            if not self.allow_handoff:
                self._invalid(
                    number,
                    "handoff_ready needs protocol v2 with capability native_plan_handoff",
                    line,
                )
                return
            self.stats.handoffs += 1
            self.log.note(f"handoff_ready {event.handoff_id}")
            self.handler.handoff(event)
        else:
            key = (event.source, event.source_key)
            if key in self._seen:
                self._duplicate(number, f"{event.source} {event.source_key}")
                return
            self._seen.add(key)
            self.stats.messages += 1
            self.handler.message(event.to_message())

    # -- a stream ---------------------------------------------------------------------
    def feed(self, chunk: bytes) -> None:
        """Take the next bytes of the stream (any split); complete lines are handled."""
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                if not self._skipping:
                    self._buffer += chunk[start:]
                    if len(self._buffer) > self.max_line:
                        self._skipping = True
                        self._buffer.clear()
                return
            self._number += 1
            if self._skipping:
                self._skipping = False
                self._invalid(self._number, f"longer than {self.max_line} bytes", b"")
            else:
                self._buffer += chunk[start:end]
                self.feed_line(self._number, bytes(self._buffer))
            self._buffer.clear()
            start = end + 1

    def finish(self) -> None:
        """The stream ended: handle a last line that had no newline."""
        if self._skipping:
            self._invalid(self._number + 1, f"longer than {self.max_line} bytes", b"")
        elif self._buffer:
            self.feed_line(self._number + 1, bytes(self._buffer))
        self._buffer.clear()
        self._skipping = False

    def read_fd(self, fd: int, stop: threading.Event) -> None:
        """Read ``fd`` to its end (see :func:`read_chunks`) and handle every line."""
        for chunk in read_chunks(fd, stop):
            self.feed(chunk)
        self.finish()


def read_chunks(
    fd: int, stop: threading.Event, idle_seconds: float = 2.0, cap_seconds: float = 60.0
) -> Iterator[bytes]:
    """The bytes of ``fd`` until its end. Once ``stop`` is set (the adapter has exited), keep
    reading while data comes, but end after ``idle_seconds`` without data or ``cap_seconds``
    in all: a grandchild that inherited the stream cannot hold the run open."""
    idle_until: float | None = None
    cap_until: float | None = None
    while True:
        now = time.monotonic()
        if stop.is_set() and cap_until is None:
            idle_until, cap_until = now + idle_seconds, now + cap_seconds
        if cap_until is not None and idle_until is not None:
            if now >= cap_until or now >= idle_until:
                return
            timeout = min(idle_until, cap_until) - now
        else:
            timeout = 0.2
        try:
            ready, _, _ = select.select([fd], [], [], timeout)
        except InterruptedError:
            continue
        if not ready:
            continue
        try:
            chunk = os.read(fd, CHUNK)
        except OSError:
            return
        if not chunk:
            return
        if idle_until is not None:
            idle_until = time.monotonic() + idle_seconds
        yield chunk
