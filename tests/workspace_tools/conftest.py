"""A real git project with a linked worktree, Claude Code sessions in both, and a real hub.

``project`` is a git repository in ``tmp_path`` (``shop``) with a linked worktree made by git
itself; one Claude Code session ran in the repository, one in the worktree, one in a chat
folder. The hub is the real app over this test's own hangar (executor in process); a
``Browser`` is a client logged in through the web form, with this session's CSRF token, the
way the web UI talks to the hub.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin, Subprotocol

from hangar.composition import LocalHangar
from hangar.hub.auth import SESSION_COOKIE
from hangar.hub.server import bind_socket
from workspace_tools.projects import Project, make_project

TOKEN = "test-token-0123456789abcdef0123456789"
ORIGIN = "http://127.0.0.1"
SUBPROTOCOL = "hangar.terminal.v1"


@pytest.fixture
def project(isolated_home: Path, tmp_path: Path) -> Project:
    return make_project(isolated_home, tmp_path)


@pytest.fixture
def state(hangar_home: Path) -> Iterator[LocalHangar]:
    opened = LocalHangar.open()
    yield opened
    opened.close()


@pytest.fixture
def hub_app(state: LocalHangar, project: Project) -> FastAPI:
    return state.create_app(TOKEN)


@dataclass
class Browser:
    """A logged-in browser session on a served hub: its cookie and CSRF token."""

    url: str
    client: httpx.Client
    csrf: str

    @property
    def cookie(self) -> str:
        return f"{SESSION_COOKIE}={self.client.cookies[SESSION_COOKIE]}"

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/ui/terminal"

    @property
    def subprotocols(self) -> list[Subprotocol]:
        return [Subprotocol(SUBPROTOCOL), Subprotocol("csrf." + self.csrf)]

    def tasks(self) -> dict[str, dict[str, Any]]:
        """The listed tasks by the directory they ran in."""
        body = self.client.get("/api/runtime-work").json()
        tasks = [t for p in body["projects"] for t in p["tasks"]] + body["conversations"]
        return {str(t["workspacePath"]): t for t in tasks}

    def post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        return self.client.post(path, json=body, headers={"X-CSRF-Token": self.csrf})

    def connect(self, **overrides: Any) -> ClientConnection:
        """A terminal socket as the web UI opens it (``overrides`` change one part)."""
        options: dict[str, Any] = {
            "origin": Origin(self.url),
            "subprotocols": self.subprotocols,
            "additional_headers": {"Cookie": self.cookie},
            "open_timeout": 10,
        }
        options.update(overrides)
        return connect(self.ws_url, **options)


@contextmanager
def serving(app: FastAPI) -> Iterator[str]:
    """``app`` served by uvicorn on a free loopback port, in a thread; yields its URL."""
    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        assert thread.is_alive(), "uvicorn stopped"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()


def log_in(url: str) -> Iterator[Browser]:
    with httpx.Client(base_url=url, timeout=20) as client:
        done = client.post("/login", data={"token": TOKEN}, follow_redirects=False)
        assert done.status_code == 303
        page = client.get("/runtime-tasks").text
        match = re.search(r'<meta name="csrf-token" content="([^"]+)">', page)
        assert match is not None
        yield Browser(url, client, match.group(1))


@pytest.fixture
def hub_url(hub_app: FastAPI) -> Iterator[str]:
    with serving(hub_app) as url:
        yield url


@pytest.fixture
def browser(hub_url: str) -> Iterator[Browser]:
    yield from log_in(hub_url)


def read_until(ws: ClientConnection, marker: bytes, timeout: float = 15.0) -> bytes:
    """The terminal output received until ``marker`` shows up (text frames are skipped)."""
    seen = bytearray()
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"{marker!r} not in the output: {bytes(seen[-500:])!r}")
        frame = ws.recv(timeout=left)
        if isinstance(frame, bytes):
            seen += frame
            if marker in seen[-(len(frame) + len(marker)) :]:
                return bytes(seen)


def open_frame(**fields: Any) -> str:
    return json.dumps({"type": "open", "cols": 100, "rows": 30, **fields})


def control(ws: ClientConnection, timeout: float = 15.0) -> dict[str, Any]:
    """The next text frame (a control message), skipping output."""
    deadline = time.monotonic() + timeout
    while True:
        frame = ws.recv(timeout=max(deadline - time.monotonic(), 0.01))
        if isinstance(frame, str):
            return dict(json.loads(frame))


def opened(ws: ClientConnection) -> dict[str, Any]:
    answer = control(ws)
    assert answer["type"] == "opened", answer
    return answer
