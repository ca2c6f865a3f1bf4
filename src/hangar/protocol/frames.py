"""The executor's WebSocket wire: frames, their limits, and chunked answers (no I/O here).

A remote executor (``hangar executor --hub URL``) and the hub exchange binary WebSocket
messages, each one *frame*: a small JSON header, a newline, then the body bytes (often empty)::

    {"t":"call","id":7,"method":"runtime.tasks.list"}\\n{"includeArchived":false}

The body of a ``call`` is the method's request struct encoded once (:mod:`hangar.protocol`'s
types, camelCase JSON); the body of a ``result`` is its response. An answer larger than
:data:`CHUNK_BYTES` goes out as several ``result`` frames with ``more: true`` on all but the
last, so no frame ever comes near :data:`MAX_FRAME_BYTES` (the size at which either side closes
the connection with 1009). Frames of different calls interleave: one large or slow answer never
holds back another.

Frame kinds — device to hub: ``hello`` (first, once), ``result``, ``error``, ``status``,
``event``; hub to device: ``welcome`` (the answer to ``hello``), ``call``, ``cancel``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal

import msgspec

from hangar.errors import HangarError
from hangar.protocol.codec import MAX_ID_CHARS

PROTOCOL_VERSION = 1
MAX_FRAME_BYTES = 1 << 20
"""Largest frame either side accepts (1 MiB); a larger one closes the connection (1009)."""
CHUNK_BYTES = 512 * 1024
"""Body bytes per ``result`` frame of a chunked answer."""
MAX_ANSWER_BYTES = 256 << 20
"""Largest answer the hub reassembles (256 MiB); a longer one fails that call only."""
MAX_HEADER_BYTES = 16 * 1024

#: Close codes (4000-4999 are the application's own; 1009 is the protocol's "too big").
CLOSE_MALFORMED = 4400
CLOSE_BAD_TOKEN = 4401
CLOSE_REFUSED = 4403
CLOSE_HELLO_TIMEOUT = 4408
CLOSE_ALREADY_CONNECTED = 4409
CLOSE_PROTOCOL = 4426
CLOSE_TOO_BIG = 1009
FATAL_CLOSE_CODES = frozenset({CLOSE_BAD_TOKEN, CLOSE_REFUSED, CLOSE_PROTOCOL})
"""Refusals that reconnecting cannot change: the executor stops and says why."""

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID_CHARS)]
EventName = Annotated[str, msgspec.Meta(pattern=r"^[a-z][a-z0-9_.]{0,63}$")]
DeviceState = Literal["online", "busy"]


class _Frame(msgspec.Struct, tag_field="t", forbid_unknown_fields=True, rename="camel"):
    pass


class Hello(_Frame, tag="hello", kw_only=True):
    device_id: Name
    name: Annotated[str, msgspec.Meta(max_length=200)] = ""
    version: str = ""
    protocol: int = PROTOCOL_VERSION
    transfer_host: Annotated[str, msgspec.Meta(max_length=255)] | None = None
    """The address this device says it can be reached at (a runtime transfer host)."""
    methods: list[str] = msgspec.field(default_factory=list)


class Welcome(_Frame, tag="welcome", kw_only=True):
    device_id: str
    name: str
    client_ip: str | None = None
    max_frame: int = MAX_FRAME_BYTES
    chunk: int = CHUNK_BYTES


class Call(_Frame, tag="call", kw_only=True):
    id: int
    method: Name
    timeout: float | None = None
    """Seconds the hub waits; the device may drop the answer after that."""


class Cancel(_Frame, tag="cancel", kw_only=True):
    id: int


class Result(_Frame, tag="result", kw_only=True):
    id: int
    more: bool = False
    """``True``: more body follows in the next ``result`` frame of this id."""


class Error(_Frame, tag="error", kw_only=True):
    id: int
    code: str
    message: str
    status: int = 500
    details: dict[str, Any] = msgspec.field(default_factory=dict)


class Status(_Frame, tag="status", kw_only=True):
    state: DeviceState
    running: int = 0


class Event(_Frame, tag="event", kw_only=True):
    name: EventName


Header = Hello | Welcome | Call | Cancel | Result | Error | Status | Event
_DECODER = msgspec.json.Decoder(Header)
_ENCODER = msgspec.json.Encoder(enc_hook=str)  # a Path in error details becomes text


@dataclass(eq=False)
class MalformedFrame(HangarError):
    """A frame that is not a header line plus body, or whose header does not fit."""

    problem: str = ""
    code: ClassVar[str] = "malformed_frame"
    http_status: ClassVar[int] = 400

    def render(self) -> str:
        return f"malformed frame: {self.problem}"


def encode(header: Header, body: bytes = b"") -> bytes:
    """One frame: the header's JSON, a newline, the body."""
    return _ENCODER.encode(header) + b"\n" + body


def decode(frame: bytes | str) -> tuple[Header, bytes]:
    """``(header, body)`` of one frame; :class:`MalformedFrame` when it is not one."""
    if isinstance(frame, str):
        raise MalformedFrame(problem="text frames are not part of the protocol")
    cut = frame.find(b"\n", 0, MAX_HEADER_BYTES + 1)
    if cut < 0:
        raise MalformedFrame(problem="no header line in the first 16 KiB")
    try:
        header = _DECODER.decode(frame[:cut])
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise MalformedFrame(problem=str(exc)[:200]) from None
    return header, frame[cut + 1 :]


def result_frames(call_id: int, body: bytes, chunk: int = CHUNK_BYTES) -> Iterator[bytes]:
    """The ``result`` frames of one answer, ``chunk`` body bytes each (at least one frame)."""
    if len(body) <= chunk:
        yield encode(Result(id=call_id), body)
        return
    for start in range(0, len(body), chunk):
        more = start + chunk < len(body)
        yield encode(Result(id=call_id, more=more), body[start : start + chunk])


@dataclass
class Reassembly:
    """Collects the chunks of answers by call id; bounded by ``limit`` bytes per answer."""

    limit: int = MAX_ANSWER_BYTES
    parts: dict[int, list[bytes]] = field(default_factory=dict)
    sizes: dict[int, int] = field(default_factory=dict)

    def add(self, call_id: int, body: bytes, more: bool) -> bytes | None:
        """The whole answer once its last chunk arrived, else ``None``. Raises
        :class:`MalformedFrame` (and forgets the call) past ``limit`` bytes."""
        size = self.sizes.get(call_id, 0) + len(body)
        if size > self.limit:
            self.drop(call_id)
            raise MalformedFrame(problem=f"answer to call {call_id} exceeds {self.limit} bytes")
        if not more and call_id not in self.parts:
            return body
        self.parts.setdefault(call_id, []).append(body)
        self.sizes[call_id] = size
        if more:
            return None
        self.sizes.pop(call_id, None)
        return b"".join(self.parts.pop(call_id))

    def drop(self, call_id: int) -> None:
        self.parts.pop(call_id, None)
        self.sizes.pop(call_id, None)


def error_frame(call_id: int, exc: BaseException) -> bytes:
    """The ``error`` frame of a failed call: a :class:`HangarError`'s code, status, message
    and details; anything else as ``internal_error`` without its traceback."""
    if isinstance(exc, HangarError):
        header = Error(
            id=call_id,
            code=exc.code,
            message=str(exc)[:2000],
            status=exc.http_status,
            details=exc.details() or {},
        )
    else:
        header = Error(
            id=call_id,
            code="internal_error",
            message=f"the executor failed: {type(exc).__name__}",
            status=500,
        )
    return encode(header)
