"""Sidecars, the WebSocket proxy, the heartbeat and the `hangar run` command's own errors."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

from hangar.localrun.hub_api import InMemoryRunApi
from hangar.localrun.providers.base import MessageSink, Provider, UsageSink
from hangar.localrun.providers.registry import register_provider
from hangar.localrun.pty_runner import ChildCommand, ScriptedPtyRunner
from hangar.localrun.run_session import RunOptions, run_local
from hangar.localrun.sidecar import Sidecar, free_loopback_port
from hangar.localrun.spool import Spool
from hangar.localrun.ws_proxy import WsProxy


def test_sidecar_stop_ends_its_whole_process_group(tmp_path: Path) -> None:
    """LR-202: stopping a sidecar ends its process group, grandchildren included."""
    pid_file = tmp_path / "grandchild.pid"
    script = f"sleep 60 & echo $! > {pid_file}; trap '' TERM; wait"
    sidecar = Sidecar(["sh", "-c", script], tmp_path, dict(os.environ))
    deadline = time.monotonic() + 10
    while not pid_file.exists() or not pid_file.read_text().strip():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    grandchild = int(pid_file.read_text())
    sidecar.stop(grace=0.5)  # the leader ignores SIGTERM: SIGKILL of the group follows
    assert sidecar.process.poll() is not None
    deadline = time.monotonic() + 10
    while Path(f"/proc/{grandchild}").exists() and "Z" not in _state(grandchild):
        assert time.monotonic() < deadline, "grandchild survived"
        time.sleep(0.02)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"


def test_ws_proxy_relays_both_ways_and_rewrites_client_text() -> None:
    """LR-195: the proxy relays every frame, lets the mapper see them, rewrites requests."""
    seen_by_server: list[str] = []
    seen_client: list[str] = []
    seen_server: list[str] = []
    loop = asyncio.new_event_loop()
    port = free_loopback_port()
    ready = threading.Event()

    async def echo(connection: ServerConnection) -> None:
        assert connection.request is not None
        auth = connection.request.headers.get("Authorization")
        async for frame in connection:
            seen_by_server.append(str(frame))
            await connection.send(json.dumps({"echo": str(frame), "auth": auth}))
            await connection.send(b"\x00binary")

    stop: list[asyncio.Event] = []

    async def upstream() -> None:
        stop.append(asyncio.Event())
        async with serve(echo, "127.0.0.1", port):
            ready.set()
            await stop[0].wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(upstream(),), daemon=True)
    thread.start()
    ready.wait(10)
    proxy = WsProxy(
        f"ws://127.0.0.1:{port}",
        rewrite_client_text=lambda text: text.upper(),
        observe_client_text=seen_client.append,
        observe_server_text=seen_server.append,
    ).start()

    async def client() -> list[object]:
        got: list[object] = []
        headers = {"Authorization": "Bearer abc"}
        async with connect(proxy.url, additional_headers=headers) as ws:
            await ws.send("hello")
            got.append(json.loads(await ws.recv()))
            got.append(await ws.recv())
        return got

    try:
        got = asyncio.run(client())
    finally:
        proxy.stop()
        loop.call_soon_threadsafe(stop[0].set)
        thread.join(10)
        loop.close()
    assert got == [{"echo": "HELLO", "auth": "Bearer abc"}, b"\x00binary"]
    assert seen_by_server == ["HELLO"] and seen_client == ["HELLO"]
    assert json.loads(seen_server[0])["echo"] == "HELLO"


@register_provider
class QuietProvider(Provider):
    """A provider that only runs its CLI (registered like a plugin)."""

    name = "quiet-test"
    executables = ("quiet-cli",)

    def run(
        self,
        args: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        reporter: MessageSink,
        usage_reporter: UsageSink,
    ) -> int:
        return self.runner.run(ChildCommand(args, cwd, env))


def test_heartbeat_patches_the_run_while_the_cli_runs(tmp_path: Path) -> None:
    """The run heartbeats while the CLI runs (the sweeper fails silent runs)."""
    api = InMemoryRunApi()
    api.issues["HGR-1"] = {"id": "i1", "key": "HGR-1", "title": "t", "status": "backlog"}

    def child(_command: ChildCommand) -> int:
        deadline = time.monotonic() + 10
        while api.calls.count("patch_run") < 2:
            assert time.monotonic() < deadline, "no heartbeat"
            time.sleep(0.02)
        return 0

    summary = run_local(
        RunOptions("HGR-1", ["quiet-cli"], tmp_path),
        api,
        ScriptedPtyRunner(child),
        {},
        Spool(tmp_path / "spool"),
        io.StringIO(),
        heartbeat_seconds=0.05,
    )
    assert summary.exit_code == 0
    assert api.runs["run-1"]["status"] == "completed"


def _hangar(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hangar", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": os.environ["HOME"],
        "HANGAR_HOME": os.environ["HANGAR_HOME"],
        "HANGAR_SERVER_URL": f"http://127.0.0.1:{free_loopback_port()}",
        "HANGAR_TOKEN": "t",
    }


def test_run_needs_a_command_and_a_known_cli(cli_env: dict[str, str]) -> None:
    unknown = _hangar("run", "HGR-1", "--", "aider", env=cli_env)
    assert unknown.returncode == 2 and "no local-run provider for `aider`" in unknown.stderr
    assert "Traceback" not in unknown.stderr


def test_run_with_the_hub_away_is_a_clear_error(cli_env: dict[str, str]) -> None:
    result = _hangar("run", "HGR-1", "--", "codex", env=cli_env)
    assert result.returncode == 1
    assert "cannot reach the hub" in result.stderr and "Traceback" not in result.stderr


def test_sync_pending_with_an_empty_spool(cli_env: dict[str, str]) -> None:
    result = _hangar("local-run", "sync-pending", env=cli_env)
    assert result.returncode == 0 and "Nothing to sync" in result.stdout
