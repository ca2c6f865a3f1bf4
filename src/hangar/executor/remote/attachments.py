"""Fetching a send's uploads from the hub this device is connected to.

A send through the hub names its files by ``attachmentId`` (the bytes stay on the hub). The
in-process executor reads them from the hub's store; a remote one asks the hub it is connected
to for ``GET /executor/attachments/<id>`` with its device token, from the same local address
its WebSocket uses. The executor checks the size and SHA-256 the send carried
(:mod:`hangar.executor.turn_inputs`), so a wrong answer is refused there.
"""

from __future__ import annotations

import http.client
import ssl
from collections.abc import Callable
from urllib.parse import quote, urlsplit

from hangar.errors import UsageError
from hangar.executor.turn_inputs import MAX_FILE_BYTES

ATTACHMENTS_PATH = "/executor/attachments/"
TIMEOUT = 60.0


def attachment_url(socket_url: str, attachment_id: str) -> str:
    """The HTTP(S) URL of an attachment on the hub whose executor endpoint is ``socket_url``."""
    parts = urlsplit(socket_url)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    prefix = parts.path.rsplit("/executor/connect", 1)[0]
    return f"{scheme}://{parts.netloc}{prefix}{ATTACHMENTS_PATH}{quote(attachment_id, safe='')}"


def hub_fetcher(
    current: Callable[[], str | None], token: str, source_address: str | None = None
) -> Callable[[str], bytes]:
    """An attachment fetcher over the hub ``current()`` names (the connected socket's URL)."""

    def fetch(attachment_id: str) -> bytes:
        socket_url = current()
        if socket_url is None:
            raise UsageError("not connected to the hub: cannot fetch the attachment")
        return _get(attachment_url(socket_url, attachment_id), token, source_address)

    return fetch


def _get(url: str, token: str, source_address: str | None) -> bytes:
    parts = urlsplit(url)
    source = (source_address, 0) if source_address else None
    conn: http.client.HTTPConnection
    if parts.scheme == "https":
        conn = http.client.HTTPSConnection(
            parts.netloc,
            timeout=TIMEOUT,
            source_address=source,
            context=ssl.create_default_context(),
        )
    else:
        conn = http.client.HTTPConnection(parts.netloc, timeout=TIMEOUT, source_address=source)
    try:
        conn.request("GET", parts.path, headers={"Authorization": f"Bearer {token}"})
        response = conn.getresponse()
        data = response.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"could not fetch the attachment from the hub: {exc}") from None
    finally:
        conn.close()
    if response.status != 200:
        detail = data[:200].decode("utf-8", "replace")
        raise UsageError(f"the hub answered {response.status} for the attachment: {detail}")
    return data
