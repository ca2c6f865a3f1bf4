"""Issue 12, item 4, on a real ``hangar serve``: a streamed body over the limit is refused
while it is being read, and the hub's memory does not grow with what the client sends."""

from __future__ import annotations

import select
import socket
from pathlib import Path
from urllib.parse import urlsplit

from hangar.hub.api.limits import MAX_BODY_BYTES

from .server_process import running_hub

CHUNK = 1 << 20
SENT_AT_MOST = 100 * CHUNK


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def complete(answer: bytes) -> bool:
    head, found, body = answer.partition(b"\r\n\r\n")
    if not found:
        return False
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return False


def test_item_4_a_streamed_body_is_refused_while_read(hangar_home: Path) -> None:
    """Item 4: 100 MB sent chunked (no Content-Length) gets 413 after about the limit, and
    the hub never holds it (it used to read all of it: RSS 106 → 401 MB)."""
    with running_hub() as hub:
        token = hub.token(hangar_home)
        address = urlsplit(hub.url)
        before = rss_bytes(hub.process.pid)
        with socket.create_connection((address.hostname, address.port), timeout=30) as sock:
            sock.sendall(
                (
                    "POST /api/local-runs/some-run/messages HTTP/1.1\r\n"
                    f"Host: {address.netloc}\r\nAuthorization: Bearer {token}\r\n"
                    "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                ).encode()
            )
            chunk = f"{CHUNK:x}\r\n".encode() + b"a" * CHUNK + b"\r\n"
            sent = 0
            while sent < SENT_AT_MOST and not select.select([sock], [], [], 0)[0]:
                try:
                    sock.sendall(chunk)
                except OSError:
                    break  # the hub answered and closed: stop sending
                sent += CHUNK
            answer = b""
            while not complete(answer):
                data = sock.recv(65536)
                if not data:
                    break
                answer += data
        status_line = answer.split(b"\r\n", 1)[0]
        assert b" 413 " in status_line, answer[:300]
        assert b'"too_large"' in answer
        assert sent <= MAX_BODY_BYTES + 16 * CHUNK, sent
        assert rss_bytes(hub.process.pid) - before < 40 * CHUNK
