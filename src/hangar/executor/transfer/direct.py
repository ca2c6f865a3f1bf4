"""Executor to executor: the source serves an archive, the target probes and fetches it
(RW-315, RW-316).

:class:`TransferListener` (on the source) is a small HTTP server on the device's transfer
address, started on first use. It serves only offered transfers, each with its own token:
``GET /probe/<transferId>?nonce=N`` answers ``HMAC-SHA256(token, "<transferId>:<N>")`` and
``GET /package/<transferId>`` streams the archive; a request without the offer's bearer token
gets 403 and nothing else.

:func:`fetch_direct` (on the target) tries only the candidates the hub gives it — the TCP peer
address the hub sees on the source's WebSocket and the transfer host the source reports — and
only fetches from one that answered the probe with the right HMAC for a fresh nonce, so an
address that merely claims to be the source (a NAT or proxy address pointing elsewhere) is
never trusted. Downloads stream to a file in chunks, bounded by the announced size.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx

from hangar.errors import HangarError
from hangar.executor.transfer.archive import CHUNK

PROBE_TIMEOUT = 5.0
DOWNLOAD_TIMEOUT = 60.0


@dataclass(eq=False)
class DirectUnavailable(HangarError):
    """No candidate answered the probe (HTTP 503); ``tried`` says why for each."""

    tried: tuple[str, ...] = ()
    code: ClassVar[str] = "direct_unavailable"
    http_status: ClassVar[int] = 503

    def details(self) -> dict[str, Any]:
        return {"tried": list(self.tried)}


def probe_answer(token: str, transfer_id: str, nonce: str) -> str:
    message = f"{transfer_id}:{nonce}".encode()
    return hmac.new(token.encode(), message, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Offer:
    token: str
    path: Path
    size: int


class TransferListener:
    """The source's HTTP server of offered archives (see the module docstring)."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.offers: dict[str, Offer] = {}
        self._server: ThreadingHTTPServer | None = None
        self._lock = threading.Lock()

    def offer(self, transfer_id: str, offer: Offer) -> int:
        """Serve ``offer`` under ``transfer_id``; returns the port."""
        with self._lock:
            self.offers[transfer_id] = offer
            if self._server is None:
                self._server = ThreadingHTTPServer((self.host, 0), _handler(self))
                self._server.daemon_threads = True
                threading.Thread(
                    target=self._server.serve_forever, name="hangar-transfer", daemon=True
                ).start()
            return int(self._server.server_address[1])

    def withdraw(self, transfer_id: str) -> None:
        with self._lock:
            self.offers.pop(transfer_id, None)

    def served(self, transfer_id: str) -> None:
        """An offer is fetched once: then it is withdrawn and its package removed."""
        with self._lock:
            offer = self.offers.pop(transfer_id, None)
        if offer is not None:
            offer.path.unlink(missing_ok=True)

    def close(self) -> None:
        with self._lock:
            server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()


def _handler(listener: TransferListener) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return  # no access log on stderr

        def do_GET(self) -> None:
            path, _, query = self.path.partition("?")
            parts = path.strip("/").split("/")
            offer = listener.offers.get(parts[1]) if len(parts) == 2 else None
            sent = self.headers.get("Authorization", "")
            if offer is None or not hmac.compare_digest(sent, f"Bearer {offer.token}"):
                self._answer(403, b"forbidden")
                return
            if parts[0] == "probe":
                nonce = query.removeprefix("nonce=")
                self._answer(200, probe_answer(offer.token, parts[1], nonce).encode())
            elif parts[0] == "package":
                self.send_response(200)
                self.send_header("Content-Length", str(offer.size))
                self.end_headers()
                with offer.path.open("rb") as handle:
                    while chunk := handle.read(CHUNK):
                        self.wfile.write(chunk)
                listener.served(parts[1])
            else:
                self._answer(404, b"not found")

        def _answer(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


def _client() -> httpx.Client:
    return httpx.Client(trust_env=False, timeout=PROBE_TIMEOUT)


def probe(host: str, port: int, transfer_id: str, token: str) -> str | None:
    """``None`` when ``host:port`` proved it holds the offer, else why not."""
    nonce = secrets.token_hex(16)
    try:
        with _client() as http:
            answer = http.get(
                f"http://{_bracket(host)}:{port}/probe/{transfer_id}",
                params={"nonce": nonce},
                headers={"Authorization": f"Bearer {token}"},
            )
    except httpx.HTTPError as exc:
        return f"{host}:{port}: {type(exc).__name__}"
    expected = probe_answer(token, transfer_id, nonce)
    if answer.status_code != 200 or not hmac.compare_digest(answer.text, expected):
        return f"{host}:{port}: failed the probe"
    return None


def download(url: str, headers: dict[str, str], out: Path, size: int) -> None:
    """Stream ``url`` into ``out`` (refusing more than ``size`` bytes)."""
    received = 0
    with (
        httpx.Client(trust_env=False, timeout=DOWNLOAD_TIMEOUT) as http,
        http.stream("GET", url, headers=headers) as answer,
        out.open("wb") as handle,
    ):
        if answer.status_code != 200:
            raise DirectUnavailable(f"{_safe(url)}: HTTP {answer.status_code}", tried=(_safe(url),))
        for chunk in answer.iter_bytes(CHUNK):
            received += len(chunk)
            if received > size:
                raise DirectUnavailable(f"{_safe(url)}: more than the announced size")
            handle.write(chunk)


def fetch_direct(
    hosts: list[str], port: int, transfer_id: str, token: str, size: int, out: Path
) -> str:
    """Fetch the archive from the first of ``hosts`` that passes the probe; returns it."""
    tried: list[str] = []
    for host in dict.fromkeys(h for h in hosts if h):
        refused = probe(host, port, transfer_id, token)
        if refused is not None:
            tried.append(refused)
            continue
        url = f"http://{_bracket(host)}:{port}/package/{transfer_id}"
        download(url, {"Authorization": f"Bearer {token}"}, out, size)
        return host
    raise DirectUnavailable(
        "no direct path to the source: " + ("; ".join(tried) or "no address to try"),
        tried=tuple(tried),
    )


def upload(url: str, path: Path) -> None:
    """``PUT`` the file at ``path`` to ``url`` (a presigned object-storage URL), streamed."""
    size = path.stat().st_size

    def chunks() -> Any:
        with path.open("rb") as handle:
            while chunk := handle.read(CHUNK):
                yield chunk

    with httpx.Client(trust_env=False, timeout=DOWNLOAD_TIMEOUT) as http:
        answer = http.put(url, content=chunks(), headers={"Content-Length": str(size)})
    if answer.status_code not in (200, 201, 204):
        raise HangarError(f"object storage refused the upload: HTTP {answer.status_code}")


def _safe(url: str) -> str:
    """``url`` without its query (a presigned URL's signature is a secret)."""
    return url.partition("?")[0]


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host else host
