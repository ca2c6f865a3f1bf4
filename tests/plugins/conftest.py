"""Fixtures for provider-plugin tests: plugin folders around the scripted adapter, and a real
``hangar serve`` on this machine's loopback for runs that need a hub."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

ADAPTER = Path(__file__).with_name("scripted_adapter.py")
USER_TOKEN = "plugin-test-user-token-0123456789"


def manifest(name: str, **overrides: Any) -> dict[str, Any]:
    caps = {
        "interactive_pty": False,
        "structured_events": True,
        "issue_context": "env",
        "usage": False,
        "native_plan_handoff": False,
    }
    caps.update(overrides.pop("capabilities", {}))
    data = {
        "schema_version": 1,
        "name": name,
        "display_name": f"Scripted {name}",
        "command": "./adapter",
        "protocol": "hangar-localrun-provider.v1",
        "capabilities": caps,
    }
    data.update(overrides)
    return data


def write_plugin(
    folder: Path,
    name: str,
    steps: Sequence[str] = (),
    adapter: str | None = None,
    **overrides: Any,
) -> Path:
    """A plugin folder: ``provider.json`` and ``adapter``, a shell script that runs the scripted
    stand-in with ``steps`` and then the user's arguments (or runs ``adapter`` instead)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "provider.json").write_text(json.dumps(manifest(name, **overrides), indent=2))
    script = folder / "adapter"
    fixed = " ".join(shlex.quote(step) for step in steps)
    body = adapter or f'exec {sys.executable} {ADAPTER} {fixed} "$@"\n'
    script.write_text(f"#!/bin/sh\n{body}")
    script.chmod(0o755)
    return folder


@pytest.fixture
def plugin_factory(tmp_path: Path) -> Callable[..., Path]:
    def make(name: str, **overrides: Any) -> Path:
        return write_plugin(tmp_path / "plugins" / name, name, **overrides)

    return make


@dataclass
class LocalHub:
    """A real ``hangar serve --port 0`` in its own HANGAR_HOME on 127.0.0.1."""

    url: str
    process: subprocess.Popen[bytes]
    home: Path

    def client(self) -> httpx.Client:
        return httpx.Client(
            base_url=self.url, headers={"Authorization": f"Bearer {USER_TOKEN}"}, timeout=30
        )

    def ok(self, method: str, path: str, body: Any = None) -> Any:
        with self.client() as client:
            response = client.request(method, path, json=body)
        assert response.status_code < 300, (response.status_code, response.text)
        return response.json()

    def issue(self, title: str = "Plugin run") -> dict[str, Any]:
        return dict(self.ok("POST", "/api/issues", {"title": title, "status": "todo"}))

    def messages(self, run_id: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        since = 0
        while True:
            page = self.ok("GET", f"/api/local-runs/{run_id}/messages?since={since}&limit=5000")
            out += page["messages"]
            if not page["messages"]:
                return out
            since = page["nextSince"]

    def runs(self, key: str) -> list[dict[str, Any]]:
        return list(self.ok("GET", f"/api/issues/{key}/local-runs")["runs"])


@pytest.fixture
def local_hub(tmp_path: Path) -> Iterator[LocalHub]:
    home = tmp_path / "hub-home"
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path / "hub-user"),
        "HANGAR_HOME": str(home),
        "HANGAR_TOKEN": USER_TOKEN,
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "hangar", "serve", "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline().decode()
    match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
    assert match, line
    hub = LocalHub(match.group(1), process, home)
    try:
        yield hub
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(30)
        process.stdout.close()


def client_env(hub: LocalHub, home: Path, **extra: str) -> dict[str, str]:
    """The environment of a user's ``hangar run`` talking to ``hub`` from ``home``."""
    return {
        "PATH": os.environ["PATH"],
        "HOME": os.environ["HOME"],
        "HANGAR_HOME": str(home),
        "HANGAR_SERVER_URL": hub.url,
        "HANGAR_TOKEN": USER_TOKEN,
        **extra,
    }


def hangar(
    args: Sequence[str], env: Mapping[str, str], cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hangar", *args],
        env=dict(env),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def install(folder: Path, home: Path) -> None:
    shutil.copytree(folder, home / "localrun-providers" / folder.name, symlinks=True)
