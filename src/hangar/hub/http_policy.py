"""What every HTTP answer of the hub enforces before and after the routes: the Host allow-list
and the security headers.

Host allow-list (against DNS rebinding: a page on another origin whose name resolves to
127.0.0.1 would otherwise reach the API with the browser's own requests). A request is served
only when the host name of its ``Host`` header is one of :attr:`HostPolicy.names`; otherwise it
is answered 400 ``host_not_allowed`` in the one error shape and reaches no route. The names are
the loopback ones (``localhost``, ``127.0.0.1``, ``::1``), the address the hub is bound to, and
the ``allowed_hosts`` setting. A hub bound to a wildcard address (``0.0.0.0``, ``::``, only with
``--allow-remote``) also accepts this machine's host name and any IP-address literal: an address
typed into a browser involves no name lookup, so it cannot be rebound.

Security headers on every answer: ``X-Frame-Options: DENY`` and CSP ``frame-ancestors 'none'``
(no framing, no click-jacking), ``X-Content-Type-Options: nosniff``, ``Referrer-Policy:
no-referrer``, and a Content-Security-Policy that allows only the hub's own scripts, styles and
connections (images also as ``data:`` URLs, which transcripts carry, and ``blob:`` URLs, the
composer's previews of a file the user picked, which never leave the page). The API docs page
(``/docs``, which loads Swagger UI from its CDN with an inline script) gets only the framing
rules.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hangar.hub.api.errors import error_response

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARD_ADDRESSES = frozenset({"0.0.0.0", "::", ""})

PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
DOCS_CSP = "frame-ancestors 'none'"
COMMON_HEADERS = (
    ("x-frame-options", "DENY"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
)


def host_name(header: str) -> str:
    """The host name of a ``Host`` header, lower case, without port or IPv6 brackets."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    if value.count(":") == 1:
        value = value.split(":", 1)[0]
    return value.rstrip(".")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class HostPolicy:
    """The host names a hub answers to (see the module docstring)."""

    names: frozenset[str]
    any_ip: bool = False

    @classmethod
    def for_bind(cls, bind_host: str, extra: Iterable[str] = ()) -> HostPolicy:
        """The policy of a hub listening on ``bind_host`` plus the ``extra`` names."""
        bound = host_name(bind_host)
        names = set(LOOPBACK_NAMES) | {host_name(name) for name in extra if name.strip()}
        wildcard = bound in WILDCARD_ADDRESSES
        if wildcard:
            names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
        else:
            names.add(bound)
        return cls(frozenset(names), any_ip=wildcard)

    def allows(self, header: str) -> bool:
        name = host_name(header)
        return name in self.names or (self.any_ip and _is_ip(name))


def parse_host_list(text: str) -> list[str]:
    """The ``allowed_hosts`` setting: names separated by commas or spaces."""
    return [part for part in text.replace(",", " ").split() if part]


class HostCheckMiddleware:
    """Answers 400 for any HTTP or WebSocket request whose ``Host`` the policy refuses."""

    def __init__(self, app: ASGIApp, policy: HostPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            header = ""
            for key, value in scope.get("headers", ()):
                if key == b"host":
                    header = value.decode("latin-1")
                    break
            if not self.policy.allows(header):
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                shown = header[:100] or "(none)"
                response = error_response(
                    400,
                    "host_not_allowed",
                    f"this hub does not answer to host {shown!r}; "
                    "add the name to the allowed_hosts setting if it is yours",
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class SecurityHeadersMiddleware:
    """Adds the security headers of the module docstring to every HTTP answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        csp = DOCS_CSP if path == "/docs" or path.startswith("/docs/") else PAGE_CSP

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in COMMON_HEADERS:
                    headers.setdefault(name, value)
                headers.setdefault("content-security-policy", csp)
            await send(message)

        await self.app(scope, receive, send_with_headers)
