"""A real ``hangar serve`` process on 127.0.0.1, driven over HTTP and by the CLI clients."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from hangar.errors import UsageError
from hangar.hub.server import bind_socket, check_bind_address, is_loopback

from .server_process import running_hub
from .sessions import sample_home


def hangar_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hangar", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_serve_prints_the_url_and_how_to_log_in_and_answers_the_api(
    hangar_home: Path, isolated_home: Path
) -> None:
    sample_home(isolated_home)
    with running_hub() as hub:
        token_file = hangar_home / "token"
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        printed = "".join(hub.output)
        assert str(token_file) in printed
        assert hub.url.startswith("http://127.0.0.1:")
        token = hub.token(hangar_home)
        with httpx.Client(base_url=hub.url, trust_env=False, timeout=30) as http:
            assert http.get("/api/runtime-work").status_code == 401
            wrong = http.get("/api/runtime-work", headers={"Authorization": "Bearer x"})
            assert wrong.status_code == 401
            assert wrong.json()["error"]["code"] == "unauthorized"
            auth = {"Authorization": f"Bearer {token}"}
            body = http.get("/api/runtime-work", headers=auth).json()
            assert {p["name"] for p in body["projects"]} == {"alpha", "beta"}
            created = http.post("/api/issues", json={"title": "From HTTP"}, headers=auth)
            assert created.status_code == 201
            assert created.json()["key"] == "HGR-1"
            assert http.get("/docs").status_code == 200
            missing = http.get("/api/issues/HGR-9", headers=auth)
            assert missing.status_code == 404
            assert set(missing.json()["error"]) >= {"code", "message"}


def test_issue_cli_talks_to_the_local_hub(hangar_home: Path) -> None:
    """`hangar issue create|list|show|comment` find the local hub via settings + token file."""
    with running_hub() as hub:
        env = dict(os.environ)
        env["HANGAR_PORT"] = hub.url.rsplit(":", 1)[1]
        created = hangar_cli(
            "issue", "create", "CLI issue", "-l", "cli", "--priority", "high", env=env
        )
        assert created.returncode == 0, created.stderr
        assert created.stdout.strip() == "HGR-1"
        comment = hangar_cli("issue", "comment", "HGR-1", "Looks good", "--json", env=env)
        assert comment.returncode == 0, comment.stderr
        comment_id = json.loads(comment.stdout)["id"]
        reply = hangar_cli("issue", "comment", "HGR-1", "Agreed", "--reply-to", comment_id, env=env)
        assert reply.returncode == 0, reply.stderr
        listed = hangar_cli("issue", "list", env=env)
        assert (
            "HGR-1" in listed.stdout and "CLI issue" in listed.stdout and "[cli]" in listed.stdout
        )
        shown = hangar_cli("issue", "show", "HGR-1", env=env)
        assert "Looks good" in shown.stdout
        assert "    Agreed" in shown.stdout  # the reply is indented under its parent
        as_json = json.loads(hangar_cli("issue", "show", "HGR-1", "--json", env=env).stdout)
        assert as_json["priority"] == "high"
        assert len(as_json["comments"]) == 2
        missing = hangar_cli("issue", "show", "HGR-7", env=env)
        assert missing.returncode == 1
        assert "not found" in missing.stderr


def test_issue_cli_uses_server_url_and_token_from_the_environment(hangar_home: Path) -> None:
    with running_hub() as hub:
        token = hub.token(hangar_home)
        env = dict(os.environ, HANGAR_SERVER_URL=hub.url, HANGAR_TOKEN=token)
        env["HANGAR_HOME"] = str(hangar_home.parent / "elsewhere")  # no token file there
        assert hangar_cli("issue", "create", "Remote", env=env).returncode == 0
        env["HANGAR_TOKEN"] = "wrong"
        refused = hangar_cli("issue", "list", env=env)
        assert refused.returncode == 1
        assert "unauthorized" in refused.stderr


def test_issue_cli_without_a_hub_says_how_to_start_one(hangar_home: Path) -> None:
    env = dict(os.environ, HANGAR_SERVER_URL="http://127.0.0.1:9", HANGAR_TOKEN="t")
    result = hangar_cli("issue", "list", env=env)
    assert result.returncode == 1
    assert "hangar serve" in result.stderr


def test_non_loopback_needs_the_explicit_flag() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0")
    assert check_bind_address("127.0.0.1", allow_remote=False) is None
    with pytest.raises(UsageError, match="--allow-remote"):
        check_bind_address("0.0.0.0", allow_remote=False)
    warning = check_bind_address("0.0.0.0", allow_remote=True)
    assert warning and warning.startswith("warning:")


def test_serve_refuses_a_public_address_without_the_flag(hangar_home: Path) -> None:
    result = hangar_cli("serve", "--host", "0.0.0.0", "--port", "0", env=dict(os.environ))
    assert result.returncode == 2
    assert "--allow-remote" in result.stderr


def test_the_listening_socket_is_tcp_so_responses_are_not_delayed() -> None:
    """asyncio sets TCP_NODELAY on accepted sockets only when their proto is TCP; without it
    every keep-alive response waited ~40 ms for the client's delayed ACK."""
    sock = bind_socket("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
    finally:
        sock.close()
