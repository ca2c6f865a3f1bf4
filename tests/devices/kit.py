"""Real hubs and real remote executors in their own homes, on loopback addresses only.

A :class:`Device` is one ``hangar executor`` process with its own ``HOME`` (its agent homes)
and ``HANGAR_HOME``, connecting from a loopback address of its own (127.0.0.2, 127.0.0.3, …:
all of 127/8 is loopback, so the hub sees distinct client IPs). Processes are ended by their
PID only.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from hub.server_process import RunningHub, running_hub  # tests/hub, a sibling package

DEADLINE = 60.0


def wait_until(condition: Callable[[], Any], what: str, deadline: float = DEADLINE) -> Any:
    """Poll ``condition`` until it is truthy (returning it), failing after ``deadline``."""
    end = time.monotonic() + deadline
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.05)


def device_env(root: Path, **extra: str) -> dict[str, str]:
    """An environment whose HOME and HANGAR_HOME are under ``root`` and nothing else leaks."""
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("HANGAR_") and not k.endswith("_HOME") and "PROXY" not in k.upper()
    }
    env.update(
        HOME=str(home),
        HANGAR_HOME=str(root / "hangar-home"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        XDG_CACHE_HOME=str(home / ".cache"),
    )
    env.update(extra)
    return env


@dataclass
class Hub:
    running: RunningHub
    token: str
    home: Path

    @property
    def url(self) -> str:
        return self.running.url

    def client(self, timeout: float = 30.0) -> httpx.Client:
        return httpx.Client(
            base_url=self.url,
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=timeout,
            trust_env=False,
        )

    def add_device(self, name: str) -> str:
        with self.client() as http:
            answer = http.post("/api/devices", json={"name": name})
        assert answer.status_code == 200, answer.text
        token: str = answer.json()["token"]
        return token

    def devices(self) -> dict[str, dict[str, Any]]:
        with self.client() as http:
            answer = http.get("/api/devices").json()
        return {d["name"]: d for d in answer["devices"]}

    def get(self, path: str, **params: Any) -> Any:
        with self.client() as http:
            answer = http.get(path, params=params)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def post(self, path: str, body: Any, timeout: float = 30.0) -> httpx.Response:
        with self.client(timeout) as http:
            return http.post(path, json=body)

    def wait_online(self, *names: str, state: str = "online") -> None:
        wait_until(
            lambda: all(self.devices().get(n, {}).get("state") == state for n in names),
            f"{names} {state}",
        )


@contextmanager
def hub_process(root: Path, *args: str, **env: str) -> Iterator[Hub]:
    """``hangar serve --port 0 ARGS`` in its own home under ``root``."""
    environment = device_env(root, **env)
    with running_hub(*args, env=environment) as running:
        home = Path(environment["HANGAR_HOME"])
        token = env.get("HANGAR_TOKEN") or running.token(home)
        yield Hub(running, token, home)


@dataclass
class Device:
    """One ``hangar executor`` process (see the module docstring)."""

    name: str
    root: Path
    address: str
    hubs: list[str]
    token: str | None = None
    extra_args: list[str] = field(default_factory=list)
    env_extra: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen[str] | None = None
    lines: list[str] = field(default_factory=list)
    _queue: queue.Queue[str] = field(default_factory=queue.Queue)
    _reader: threading.Thread | None = None

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def hangar_home(self) -> Path:
        return self.root / "hangar-home"

    def env(self) -> dict[str, str]:
        return device_env(self.root, HANGAR_DEVICE_NAME=self.name, **self.env_extra)

    def start(self, wait: bool = True) -> Device:
        command = [sys.executable, "-m", "hangar", "executor", "--source-address", self.address]
        for hub in self.hubs:
            command += ["--hub", hub]
        if self.token:
            command += ["--token", self.token]
        command += self.extra_args
        self.process = subprocess.Popen(
            command,
            env=self.env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self._queue = queue.Queue()
        self._reader = threading.Thread(target=self._pump, args=(self.process,), daemon=True)
        self._reader.start()
        if wait:
            self.wait_for("connected")
        return self

    def _pump(self, process: subprocess.Popen[str]) -> None:
        assert process.stderr is not None
        with process.stderr:
            for line in process.stderr:
                self.lines.append(line)
                self._queue.put(line)

    def wait_for(self, text: str, deadline: float = DEADLINE) -> str:
        end = time.monotonic() + deadline
        while True:
            assert self.process is not None
            remaining = end - time.monotonic()
            assert remaining > 0, f"{self.name}: no {text!r} in:\n{''.join(self.lines)}"
            try:
                line = self._queue.get(timeout=min(remaining, 0.5))
            except queue.Empty:
                if self.process.poll() is not None and self._queue.empty():
                    raise AssertionError(
                        f"{self.name} exited {self.process.returncode}:\n{''.join(self.lines)}"
                    ) from None
                continue
            if text in line:
                return line

    def signal(self, signum: int) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signum)

    def kill(self) -> None:
        """SIGKILL by PID (a crash: no goodbye on the socket beyond the kernel's)."""
        if self.process is not None and self.process.poll() is None:
            self.signal(signal.SIGKILL)
            self.process.wait(timeout=15)
        self._finish()

    def _finish(self) -> None:
        if self._reader is not None:
            self._reader.join(timeout=15)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill()
        self._finish()


@contextmanager
def devices(*items: Device) -> Iterator[list[Device]]:
    """Start every device; end each by its PID afterwards."""
    started: list[Device] = []
    try:
        for item in items:
            started.append(item.start())
        yield started
    finally:
        for item in started + [i for i in items if i not in started]:
            with_cont = item.process is not None and item.process.poll() is None
            if with_cont:
                item.signal(signal.SIGCONT)
            item.stop()


# -- in this process: a hub on a thread, an executor client on a thread -------------------------
@dataclass
class ThreadHub:
    local: Any
    server: Any
    token: str

    @property
    def url(self) -> str:
        return str(self.server.url)

    @property
    def ctx(self) -> Any:
        return self.server.app.state.hub

    def client(self, timeout: float = 30.0) -> httpx.Client:
        return httpx.Client(
            base_url=self.url,
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=timeout,
            trust_env=False,
        )

    def add_device(self, name: str) -> str:
        with self.client() as http:
            answer = http.post("/api/devices", json={"name": name})
        assert answer.status_code == 200, answer.text
        token: str = answer.json()["token"]
        return token


@contextmanager
def hub_thread(
    root: Path, *, serve_executor: bool = False, bind_host: str = "127.0.0.1", **env: str
) -> Iterator[ThreadHub]:
    """A real hub (``LocalHangar`` on uvicorn) serving on a thread of this process, built as
    for a hub that listens on ``bind_host`` (it serves on loopback either way)."""
    from hangar.composition import LocalHangar
    from hangar.token_file import TokenSource

    environ = device_env(root, **env)
    local = LocalHangar.open(environ, serve_executor=serve_executor)
    token = "thread-hub-token-0123456789abcdef0123"
    try:
        app = local.create_app(token, bind_host=bind_host)
        server = local.server(app, "127.0.0.1", 0, TokenSource(token, "test"))
        thread = threading.Thread(target=server.serve, name="test-hub", daemon=True)
        thread.start()
        wait_until(lambda: getattr(server, "_uvicorn", None) is not None, "the hub to start")
        wait_until(lambda: server._uvicorn.started, "uvicorn to accept")
        try:
            yield ThreadHub(local, server, token)
        finally:
            server.stop()
            thread.join(timeout=30)
    finally:
        local.close()


@contextmanager
def client_thread(client: Any) -> Iterator[Any]:
    """Run an :class:`~hangar.executor.remote.client.ExecutorClient` on its own loop."""
    import asyncio

    loop = asyncio.new_event_loop()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            loop.run_until_complete(client.run())
        except BaseException as exc:
            errors.append(exc)
        finally:
            loop.close()

    thread = threading.Thread(target=run, name="test-executor-client", daemon=True)
    thread.start()
    try:
        yield client
    finally:
        if not loop.is_closed():
            loop.call_soon_threadsafe(client.stop)
        thread.join(timeout=30)
    if errors:
        raise errors[0]


@contextmanager
def sse(url: str, token: str) -> Iterator[list[dict[str, Any]]]:
    """The events of ``GET /api/events`` as they come, in a list (read on a thread)."""
    import json

    events: list[dict[str, Any]] = []
    stop = threading.Event()
    connected = threading.Event()

    def read() -> None:
        headers = {"Authorization": f"Bearer {token}"}
        client = httpx.Client(base_url=url, headers=headers, timeout=None, trust_env=False)
        try:
            with client, client.stream("GET", "/api/events") as response:
                name = None
                for line in response.iter_lines():
                    connected.set()
                    if stop.is_set():
                        return
                    if line.startswith("event: "):
                        name = line[len("event: ") :]
                    elif line.startswith("data: ") and name:
                        events.append({"event": name, **json.loads(line[len("data: ") :])})
        except httpx.HTTPError:
            return  # the hub stopped

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert connected.wait(30), "no SSE stream"
    try:
        yield events
    finally:
        stop.set()


@contextmanager
def sandbox_device(
    agent_sandbox: Any,
    root: Path,
    hub: ThreadHub,
    address: str,
    runtimes: tuple[str, ...],
    token: str,
    name: str = "laptop",
    transfer_host: str | None = None,
    transfer_bind: str | None = None,
) -> Iterator[Any]:
    """An executor in this process with its own ``HANGAR_HOME`` under ``root``, reading the
    agent homes of ``agent_sandbox`` (an :class:`~hangar.testing.agent_runs.AgentSandbox`)
    and starting the pinned CLIs inside that loopback-only sandbox, connected to ``hub`` from
    ``address`` with ``token``; yields the executor once the hub lists it online. Its transfer
    listener binds to ``transfer_bind`` (default: ``address``); it reports ``transfer_host``."""
    from hangar.agents.registry import open_stores
    from hangar.executor.remote.run import RemoteOptions, build_client
    from hangar.executor.service import Executor

    home = agent_sandbox.host(agent_sandbox.homes.home)
    agent_env = {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
    }
    stores = dict(open_stores(agent_env))
    executor = Executor.open(
        device_env(root, HANGAR_DEVICE_NAME=name, HANGAR_TRANSFER_BIND=transfer_bind or address),
        stores={r: stores[r] for r in runtimes},
        launcher=agent_sandbox.launcher(),
    )
    try:
        options = RemoteOptions(
            hubs=[hub.url], token=token, source_address=address, transfer_host=transfer_host
        )
        with client_thread(build_client(executor, options)):
            wait_until(
                lambda: any(
                    i.device_id == executor.device.device_id for i in hub.ctx.device_infos()
                ),
                f"{name} online",
            )
            yield executor
    finally:
        executor.close()
