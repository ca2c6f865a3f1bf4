"""Host allow-list and security headers (hardening item 10)."""

from __future__ import annotations

import os
import socket

import httpx
import pytest
from fastapi.testclient import TestClient

from hangar.hub.http_policy import HostPolicy, host_name

from .server_process import running_hub


@pytest.mark.parametrize(
    "host",
    ["evil.example", "evil.example:8765", "127.0.0.1.evil.example", "localhost.evil.example"],
)
def test_hardening_10_a_rebound_host_name_reaches_no_route(client: TestClient, host: str) -> None:
    """DNS rebinding: a page on evil.example (resolving to 127.0.0.1) sends its own Host."""
    for method, path in (("GET", "/api/issues"), ("POST", "/login"), ("GET", "/runtime-tasks")):
        response = client.request(method, path, headers={"Host": host})
        assert response.status_code == 400, (method, path)
        assert response.json()["error"]["code"] == "host_not_allowed"
        assert "allowed_hosts" in response.json()["error"]["message"]
        assert response.headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:1", "[::1]:8765", "LOCALHOST"])
def test_hardening_10_loopback_names_are_served(client: TestClient, host: str) -> None:
    assert client.get("/api/issues", headers={"Host": host}).status_code == 200


def test_hardening_10_the_refusal_does_not_echo_an_unbounded_host(client: TestClient) -> None:
    response = client.get("/api/issues", headers={"Host": "a" * 10_000})
    assert response.status_code == 400
    assert len(response.text) < 500


def test_hardening_10_host_policy_of_a_bind_address() -> None:
    loopback = HostPolicy.for_bind("127.0.0.1")
    assert loopback.allows("127.0.0.1:8765") and loopback.allows("localhost")
    assert not loopback.allows("192.168.1.20") and not loopback.allows("")
    named = HostPolicy.for_bind("127.0.0.1", ["hangar.example.com", " Laptop.LAN "])
    assert named.allows("hangar.example.com") and named.allows("laptop.lan:80")
    one_address = HostPolicy.for_bind("192.168.1.20")
    assert one_address.allows("192.168.1.20:8765") and not one_address.allows("10.0.0.1")
    wildcard = HostPolicy.for_bind("0.0.0.0")
    assert wildcard.allows("10.0.0.7:8765") and wildcard.allows("[fe80::1]:8765")
    assert wildcard.allows(socket.gethostname())
    assert not wildcard.allows("evil.example")
    assert host_name("[::1]:80") == "::1" and host_name("Example.COM.:1") == "example.com"


def test_hardening_10_every_answer_carries_the_security_headers(
    client: TestClient, anonymous: TestClient
) -> None:
    answers = {
        "api": client.get("/api/issues"),
        "unauthorized": anonymous.get("/api/issues"),
        "login": anonymous.get("/login"),
        "static": anonymous.get("/static/app.css"),
        "page": client.get("/issues", follow_redirects=False),
        "not found": client.get("/api/issues/HGR-404"),
    }
    for name, response in answers.items():
        headers = response.headers
        assert headers["x-frame-options"] == "DENY", name
        assert headers["x-content-type-options"] == "nosniff", name
        assert headers["referrer-policy"] == "no-referrer", name
        csp = headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp, name
        assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp, name
    docs = anonymous.get("/docs")
    assert docs.status_code == 200
    assert docs.headers["content-security-policy"] == "frame-ancestors 'none'"


def test_hardening_10_serve_answers_only_its_names_and_the_allowed_hosts(
    hangar_home: object,
) -> None:
    env = dict(os.environ, HANGAR_ALLOWED_HOSTS="hangar.example.test")
    with running_hub(env=env) as hub:
        port = hub.url.rsplit(":", 1)[1]
        with httpx.Client(base_url=hub.url, trust_env=False, timeout=30) as http:
            assert http.get("/login").status_code == 200
            assert http.get("/login", headers={"Host": f"localhost:{port}"}).status_code == 200
            named = http.get("/login", headers={"Host": f"hangar.example.test:{port}"})
            assert named.status_code == 200
            rebound = http.get("/login", headers={"Host": f"attacker.example:{port}"})
            assert rebound.status_code == 400
