"""A DNS sink: logs every queried name and answers each query with failure at once.

It runs inside the sandbox's network namespace on ``127.0.0.1:53`` (UDP), where the private
``resolv.conf`` points. A lookup of any name therefore fails fast instead of timing out, and
the log (one JSON object per line: ``{"name", "qtype", "time"}``) lets a test assert which
names a CLI tried to resolve.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from pathlib import Path

RCODE_REFUSED = 5
_HEADER = struct.Struct("!HHHHHH")


def parse_question(packet: bytes) -> tuple[str, int] | None:
    """Return ``(name, qtype)`` of the first question in a DNS query, or None if malformed."""
    if len(packet) < _HEADER.size:
        return None
    labels: list[str] = []
    offset = _HEADER.size
    while offset < len(packet):
        length = packet[offset]
        offset += 1
        if length == 0:
            break
        if length & 0xC0 or offset + length > len(packet):
            return None  # queries never use compression; anything else is garbage
        labels.append(packet[offset : offset + length].decode("ascii", "replace"))
        offset += length
    else:
        return None
    if offset + 4 > len(packet):
        return None
    (qtype,) = struct.unpack_from("!H", packet, offset)
    return ".".join(labels), qtype


def failure_reply(packet: bytes) -> bytes:
    """The query echoed back as a response with RCODE REFUSED and no answers."""
    ident, flags, qdcount, _an, _ns, _ar = _HEADER.unpack_from(packet)
    opcode_and_rd = flags & 0x7900  # keep opcode and RD, as resolvers expect them mirrored
    reply_flags = 0x8000 | opcode_and_rd | 0x0080 | RCODE_REFUSED  # QR, RA, REFUSED
    return _HEADER.pack(ident, reply_flags, qdcount, 0, 0, 0) + packet[_HEADER.size :]


class DnsSink:
    """UDP DNS sink bound to ``host:port``; :meth:`start` spawns a daemon thread."""

    def __init__(self, log_path: Path, host: str = "127.0.0.1", port: int = 53) -> None:
        self.log_path = log_path
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._sock.bind((host, port))
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._serve, name="dns-sink", daemon=True)

    @property
    def port(self) -> int:
        return int(self._sock.getsockname()[1])

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._sock.close()

    def _serve(self) -> None:
        while True:
            try:
                packet, peer = self._sock.recvfrom(4096)
            except OSError:
                return  # socket closed
            question = parse_question(packet)
            entry = {
                "name": question[0] if question else None,
                "qtype": question[1] if question else None,
                "time": time.time(),
            }
            with self._lock, self.log_path.open("a", encoding="utf-8") as log:
                log.write(json.dumps(entry) + "\n")
            if question is not None:
                self._sock.sendto(failure_reply(packet), peer)
