"""Team-hub benchmark: list and search fanning out to 50 remote devices over WebSockets.

    python bench/devices.py --json [--devices 50] [--tasks 20] [--requests 100]

A real ``hangar serve --no-executor`` process on 127.0.0.1; ``--devices`` simulated devices in
a process of their own, each a real :class:`~hangar.executor.remote.client.ExecutorClient` (the same
connection, framing and backoff code as ``hangar executor``) connecting from its own loopback
address (127.0.0.10, 127.0.0.11, …) with its own device token, served by a stand-in executor
that answers ``runtime.tasks.list`` (``--tasks`` tasks, honouring ``ifRevision`` as the real
one does) and ``runtime.tasks.search`` from memory, so the figures are the hub's and the
wire's, not the agents' stores. Measured over HTTP, one request at a time and in bursts of 10:

* ``list`` — ``GET /api/runtime-work`` with one device online (the baseline) and with all of
  them: p50/p95 and ``list_ratio_p50`` (all / one; target ≤ 20, where asking one device after
  the other would be ≈ 50);
* ``search`` — ``POST /api/runtime-work/search`` fanning out to every device: p50/p95;
* ``errors`` — failed requests plus device errors named in the answers (must be 0).

Bounded: a fixed number of requests, a deadline for the whole run (``--deadline``), loopback
only. The server is ended by its PID; its home is a temp dir removed afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import msgspec

from hangar.executor.remote.client import ExecutorClient
from hangar.executor.rpc import MethodNotSupportedError
from hangar.model import LocalTask
from hangar.protocol import frames as f
from hangar.protocol import methods as m
from hangar.protocol import tasks as t

URL_LINE = re.compile(r"listening on (http://127\.0\.0\.1:\d+)/")
TOKEN = "bench-devices-token-0123456789abcdef"
REVISION = 7


class StandIn:
    """A stand-in executor: one device's list and search answers, encoded once."""

    def __init__(self, device_id: str, tasks: int) -> None:
        listed = [
            LocalTask(
                device_id=device_id,
                local_task_id=f"{device_id}-task-{n}",
                runtime="claude",
                runtime_handle={"sessionId": f"{device_id}-{n}"},
                title=f"Task {n} of {device_id}",
                workspace_path=f"/srv/{device_id}/project-{n % 4}",
                group_workspace_path=f"/srv/{device_id}/project-{n % 4}",
                workspace_kind="workspace",
                created_at="2026-12-01T09:00:00Z",
                updated_at=f"2026-12-01T{9 + n % 12:02d}:{n % 60:02d}:00Z",
                message_count=12,
            )
            for n in range(tasks)
        ]
        self.full = msgspec.json.encode(t.TaskList(tasks=listed, revision=REVISION))
        self.unchanged = msgspec.json.encode(
            t.TaskList(tasks=[], revision=REVISION, unchanged=True)
        )
        hits = [
            t.SearchHit(
                device_id=device_id,
                local_task_id=task.local_task_id,
                title=task.title,
                snippet="the «lighthouse» is on the hill",
                message_index=3,
                role="assistant",
                updated_at=task.updated_at,
                device_name=device_id,
                workspace_path=task.workspace_path,
                runtime="claude",
                runtime_handle=task.runtime_handle,
            )
            for task in listed[:5]
        ]
        self.search = msgspec.json.encode(t.SearchResults(results=hits))

    def handle(self, method: str, body: bytes) -> bytes:
        if method == m.TASKS_LIST.name:
            request = msgspec.json.decode(body or b"{}", type=t.ListTasks)
            return self.unchanged if request.if_revision == REVISION else self.full
        if method == m.TASKS_SEARCH.name:
            return self.search
        raise MethodNotSupportedError(method=method)


def start_hub(home: Path, timeout: float) -> tuple[subprocess.Popen[str], str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HANGAR_")}
    env.update(
        HANGAR_HOME=str(home),
        HOME=str(home),
        HANGAR_TOKEN=TOKEN,
        HANGAR_DEVICE_FANOUT_TIMEOUT_SECONDS=str(timeout),
    )
    command = [sys.executable, "-m", "hangar", "serve", "--port", "0", "--no-executor"]
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert process.stdout is not None
    deadline = time.monotonic() + 60
    url = None
    for line in process.stdout:
        found = URL_LINE.search(line)
        url = found.group(1) if found else url
        if url and "Ctrl-C stops" in line:
            break
        if time.monotonic() > deadline:
            break
    if url is None:
        process.kill()
        raise SystemExit("hangar serve did not start")
    threading.Thread(target=lambda: [None for _ in process.stdout or ()], daemon=True).start()
    return process, url


class Devices:
    """The simulated devices, all on one asyncio loop in a thread of this process."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.clients: list[ExecutorClient] = []
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def connect(self, url: str, token: str, device_id: str, address: str, tasks: int) -> None:
        stand_in = StandIn(device_id, tasks)
        client = ExecutorClient(
            hubs=[url],
            token=token,
            hello=f.Hello(
                device_id=device_id,
                name=device_id,
                methods=[m.TASKS_LIST.name, m.TASKS_SEARCH.name],
            ),
            handler=stand_in.handle,
            workers=2,
            source_address=address,
        )
        self.clients.append(client)
        asyncio.run_coroutine_threadsafe(client.run(), self.loop)

    def stop(self) -> None:
        for client in self.clients:
            self.loop.call_soon_threadsafe(client.stop)
        time.sleep(0.5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
    return {"p50_ms": round(statistics.median(ordered) * 1000, 2), "p95_ms": round(p95 * 1000, 2)}


def measure(http: httpx.Client, requests: int, make: Any) -> tuple[list[float], int]:
    """``requests`` sequential calls, then the same number in bursts of 10 at once."""
    times: list[float] = []
    errors = 0

    def one() -> tuple[float, int]:
        start = time.perf_counter()
        response = make()
        elapsed = time.perf_counter() - start
        bad = response.status_code != 200 or bool(response.json().get("errors"))
        return elapsed, int(bad)

    for _ in range(requests):
        elapsed, bad = one()
        times.append(elapsed)
        errors += bad
    with ThreadPoolExecutor(max_workers=10) as pool:
        for _ in range(max(1, requests // 10)):
            for elapsed, bad in pool.map(lambda _: one(), range(10)):
                times.append(elapsed)
                errors += bad
    return times, errors


def simulate(url: str, tokens_file: str, first: int, tasks: int) -> None:
    """Child process: connect one simulated device per token, until stdin closes."""
    tokens = json.loads(Path(tokens_file).read_text())
    simulated = Devices()
    for n, token in enumerate(tokens, start=first):
        simulated.connect(url, token, f"device-{n:02d}", f"127.0.0.{10 + n}", tasks)
    sys.stdin.read()
    simulated.stop()


def spawn_devices(
    url: str, root: Path, tokens: list[str], first: int, tasks: int
) -> subprocess.Popen[str]:
    """The devices run in a process of their own (as on other machines): their work never
    shares an interpreter with the client that measures."""
    tokens_file = root / f"tokens-{first}.json"
    tokens_file.write_text(json.dumps(tokens))
    command = [
        sys.executable,
        __file__,
        "--simulate",
        url,
        str(tokens_file),
        str(first),
        "--tasks",
        str(tasks),
    ]
    return subprocess.Popen(command, stdin=subprocess.PIPE, text=True)


def run(count: int, tasks: int, requests: int, deadline: float) -> dict[str, Any]:
    started = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="hangar-bench-devices-"))
    process, url = start_hub(root / "hub", timeout=10.0)
    children: list[subprocess.Popen[str]] = []
    headers = {"Authorization": f"Bearer {TOKEN}"}
    try:
        with httpx.Client(base_url=url, headers=headers, timeout=60, trust_env=False) as http:
            tokens = [
                http.post("/api/devices", json={"name": f"device-{n:02d}"}).json()["token"]
                for n in range(count)
            ]

            def online() -> int:
                states = http.get("/api/devices").json()["devices"]
                return sum(1 for d in states if d["state"] == "online")

            def wait_for(number: int) -> float:
                begin = time.monotonic()
                while online() < number:
                    if time.monotonic() - started > deadline:
                        raise SystemExit(f"only {online()} of {number} devices connected in time")
                    time.sleep(0.05)
                return time.monotonic() - begin

            children.append(spawn_devices(url, root, tokens[:1], 0, tasks))
            wait_for(1)
            listing = lambda: http.get("/api/runtime-work")  # noqa: E731
            one_list, one_errors = measure(http, requests, listing)
            children.append(spawn_devices(url, root, tokens[1:], 1, tasks))
            connect_s = wait_for(count)
            view = http.get("/api/runtime-work").json()
            listed = sum(len(p["tasks"]) for p in view["projects"])
            all_list, all_errors = measure(http, requests, listing)
            searching = lambda: http.post(  # noqa: E731
                "/api/runtime-work/search", json={"query": "lighthouse", "limit": 100}
            )
            search, search_errors = measure(http, requests, searching)
            found = len(searching().json()["results"])
    finally:
        for child in children:
            if child.stdin is not None:
                child.stdin.close()
            try:
                child.wait(timeout=20)
            except subprocess.TimeoutExpired:
                child.kill()
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(root, ignore_errors=True)
    one = percentiles(one_list)
    many = percentiles(all_list)
    errors = one_errors + all_errors + search_errors
    figures: dict[str, Any] = {
        "devices": count,
        "tasks_per_device": tasks,
        "tasks_listed": listed,
        "requests_each": len(all_list),
        "connect_all_s": round(connect_s, 2),
        "list_one_device": one,
        "list_all_devices": many,
        "list_ratio_p50": round(many["p50_ms"] / one["p50_ms"], 2),
        "search_all_devices": percentiles(search),
        "search_results": found,
        "errors": errors,
        "wall_s": round(time.monotonic() - started, 1),
    }
    figures["targets"] = {
        "no_errors": errors == 0,
        "every_task_listed": listed == count * tasks,
        # Asked in parallel, fifty devices cost far less than fifty times one (linear: 50).
        "list_ratio_p50_le_20": figures["list_ratio_p50"] <= 20,
        "within_deadline": figures["wall_s"] <= deadline,
    }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--devices", type=int, default=50)
    parser.add_argument("--tasks", type=int, default=20, help="tasks per device")
    parser.add_argument("--requests", type=int, default=100, help="requests per figure")
    parser.add_argument("--deadline", type=float, default=180.0, help="seconds for the run")
    parser.add_argument(
        "--simulate", nargs=3, metavar=("URL", "TOKENS", "FIRST"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.simulate:
        url, tokens_file, first = args.simulate
        simulate(url, tokens_file, int(first), args.tasks)
        return
    if not 1 <= args.devices <= 200:
        raise SystemExit("--devices must be 1..200 (one loopback address each)")
    figures = run(args.devices, args.tasks, args.requests, args.deadline)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
    if not all(figures["targets"].values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
