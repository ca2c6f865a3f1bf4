"""The direct path between executors on real sockets: the listener, the probe, the archive."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from hangar.executor.transfer.archive import file_sha256, read_archive, write_archive
from hangar.executor.transfer.direct import (
    DirectUnavailable,
    Offer,
    TransferListener,
    fetch_direct,
)
from hangar.executor.transfer.package import BadPackage

TOKEN = "transfer-token-0123456789abcdef0123456789"


@contextmanager
def impostor_at(port: int) -> Iterator[tuple[str, int, list[str]]]:
    """An HTTP server on 127.0.0.9 that answers every request 200 with a fake body (as a
    NAT or proxy address pointing at someone else would); yields host, port, paths asked."""
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            asked.append(self.path.partition("?")[0])
            body = b"0" * 64
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.9", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield "127.0.0.9", int(server.server_address[1]), asked
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def impostor() -> Iterator[tuple[str, int, list[str]]]:
    with impostor_at(0) as found:
        yield found


def archive(tmp_path: Path) -> tuple[Path, str, int]:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (project / "sub" / "data.bin").write_bytes(b"\x00\xff" * 100_000)
    (project / "link").symlink_to("/etc/hostname")
    out = tmp_path / "package.tar.gz"
    digest, size = write_archive(out, {"transferId": "t-0123456789"}, {}, project)
    return out, digest, size


def test_a_peer_that_fails_the_probe_is_refused_and_never_downloaded_from(
    tmp_path: Path, impostor: tuple[str, int, list[str]]
) -> None:
    """RW-316: a candidate that answers the probe without knowing the token's HMAC for the
    fresh nonce is refused: nothing is downloaded from it, and with no other candidate the
    fetch fails naming it."""
    host, port, asked = impostor
    out = tmp_path / "fetched.tar.gz"
    with pytest.raises(DirectUnavailable) as refused:
        fetch_direct([host], port, "t-0123456789", TOKEN, 1_000_000, out)
    assert "127.0.0.9" in str(refused.value) and "failed the probe" in str(refused.value)
    assert asked == ["/probe/t-0123456789"]
    assert not out.exists()


def test_the_real_listener_passes_the_probe_after_an_impostor_fails_it(
    tmp_path: Path,
) -> None:
    """RW-315, RW-316: with the impostor tried first, the fetch goes on to the listener,
    which proves the token; the archive arrives whole and is served once; a wrong token is
    refused by the listener."""
    package, digest, size = archive(tmp_path)
    listener = TransferListener("127.0.0.5")
    try:
        port = listener.offer("t-0123456789", Offer(TOKEN, package, size))
        out = tmp_path / "wrong-token.tar.gz"
        with pytest.raises(DirectUnavailable):
            fetch_direct(["127.0.0.5"], port, "t-0123456789", "x" * 40, size, out)
        out = tmp_path / "fetched.tar.gz"
        with impostor_at(port) as (_, _, asked):  # the same port, on the reported address
            chosen = fetch_direct(
                ["127.0.0.9", "127.0.0.5"], port, "t-0123456789", TOKEN, size, out
            )
        assert chosen == "127.0.0.5" and asked == ["/probe/t-0123456789"]
        assert file_sha256(out) == digest
        assert "t-0123456789" not in listener.offers and not package.exists()  # served once
    finally:
        listener.close()


def test_an_archive_keeps_the_files_and_a_tampered_one_is_refused(tmp_path: Path) -> None:
    """The archive holds the project's regular files byte for byte (a symlink is left out);
    one changed byte fails the SHA-256 and nothing is written."""
    package, digest, _ = archive(tmp_path)
    manifest, sessions = read_archive(package, digest, tmp_path / "out")
    assert manifest["transferId"] == "t-0123456789" and sessions == {}
    assert (tmp_path / "out" / "sub" / "data.bin").read_bytes() == b"\x00\xff" * 100_000
    assert not (tmp_path / "out" / "link").exists()
    data = bytearray(package.read_bytes())
    data[len(data) // 2] ^= 0x01
    package.write_bytes(bytes(data))
    with pytest.raises(BadPackage):
        read_archive(package, digest, tmp_path / "tampered")
    assert not (tmp_path / "tampered").exists()
