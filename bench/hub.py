"""Hub benchmark: the served runtime-work API against the executor's own figures.

    python bench/hub.py --json [--large-mb 8] [--small 150]

Serves sessions with a real ``hangar serve`` process on 127.0.0.1 (``--demo`` when the demo
corpus is installed, plus generated Claude sessions in a temp HOME: ``--small`` small ones and
three large ones of ``--large-mb`` each) and measures, over HTTP:

* ``list_ms`` — ``GET /api/runtime-work`` (median of 20; target ≤ 50 ms), against the
  executor's own ``runtime.tasks.list`` in this process (``executor_list_ms``);
* ``transcript_first_page_ms`` — the first open (limit 50) of three large sessions written
  while the hub runs, against the executor's own first open of the same files
  (``executor_first_page_ms``: a fresh executor and executor.db in this run);
  ``transcript_ratio`` must be ≤ 1.2;
* ``concurrent`` — 200 transcript requests at once: errors (must be 0), p50/p95, wall time;
* ``list_under_load`` / ``list_under_load_large`` — on a server of its own with ``--small`` +
  3 = 136 and ``--load-sessions`` = 2,000 sessions, idle once its session watcher is armed:
  bursts of 20 concurrent ``GET /api/runtime-work`` (p50/p95 over every request; targets p95
  ≤ 30 ms and ≤ 60 ms), against one call at a time in the same run (``list_ms``, the
  baseline).

The server is ended by its PID; everything lives in a temp dir that is removed afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

# Without TCP_NODELAY a request written in two pieces waits for the server's delayed ACK
# (~40 ms on Linux): a client artifact that would swamp every figure here.
NODELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
URL_LINE = re.compile(r"listening on (http://127\.0\.0\.1:\d+)/")
ARMED_LINE = re.compile(r"session watcher armed")
BURST = 20
BURSTS = 10
WORDS = [
    "the",
    "build",
    "failed",
    "because",
    "a",
    "fixture",
    "path",
    "moved",
    "so",
    "update",
    "loader",
    "and",
    "rerun",
    "tests",
]


def _line(kind: str, sid: str, n: int, cwd: str, message: dict[str, Any]) -> str:
    stamp = (
        f"2026-11-{1 + n // 80000:02d}T{(n // 3600) % 24:02d}:{(n // 60) % 60:02d}:{n % 60:02d}Z"
    )
    record = {
        "type": kind,
        "uuid": f"{sid}-{n}",
        "parentUuid": f"{sid}-{n - 1}" if n else None,
        "sessionId": sid,
        "timestamp": stamp,
        "cwd": cwd,
        "isSidechain": False,
        "message": message,
    }
    return json.dumps(record) + "\n"


def write_session(home: Path, sid: str, cwd: str, target_bytes: int) -> Path:
    """A Claude Code session of about ``target_bytes``: prompts, tool calls, answers."""
    folder = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", cwd)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{sid}.jsonl"
    size = n = 0
    with path.open("w", encoding="utf-8") as out:
        while size < target_bytes or n == 0:
            text = " ".join(WORDS[(n + i) % len(WORDS)] for i in range(40))
            lines = [
                _line("user", sid, n, cwd, {"role": "user", "content": f"step {n}: {text}"}),
                _line(
                    "assistant",
                    sid,
                    n + 1,
                    cwd,
                    {
                        "id": f"m{n}",
                        "role": "assistant",
                        "model": "claude-sonnet-4-5",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": f"t{n}",
                                "name": "Bash",
                                "input": {"command": f"make test STEP={n}"},
                            }
                        ],
                    },
                ),
                _line(
                    "user",
                    sid,
                    n + 2,
                    cwd,
                    {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": f"t{n}", "content": text * 4}
                        ],
                    },
                ),
                _line(
                    "assistant",
                    sid,
                    n + 3,
                    cwd,
                    {
                        "id": f"a{n}",
                        "role": "assistant",
                        "model": "claude-sonnet-4-5",
                        "content": [{"type": "text", "text": f"done {n}: {text}"}],
                        "stop_reason": "end_turn",
                    },
                ),
            ]
            chunk = "".join(lines)
            out.write(chunk)
            size += len(chunk)
            n += 4
    return path


def make_home(root: Path, small: int) -> None:
    for i in range(small):
        write_session(
            root / "home", f"cccccccc-0000-4000-8000-{i:012d}", f"/srv/bench/p{i % 15}", 4000
        )


def add_large_sessions(root: Path, large_mb: float) -> list[str]:
    """Three large sessions, written while the hub runs: neither side has read them yet."""
    large = []
    for i in range(3):
        sid = f"bbbbbbbb-0000-4000-8000-{i:012d}"
        write_session(root / "home", sid, f"/srv/bench/large-{i}", int(large_mb * 1e6))
        large.append(sid)
    return large


def bench_env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HANGAR_")}
    home = root / "home"
    env.update(
        HOME=str(home),
        HANGAR_HOME=str(root / "hangar-home"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        XDG_CACHE_HOME=str(root / "cache"),
    )
    for var in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "CONTINUE_GLOBAL_DIR", "GEMINI_CLI_HOME"):
        env.pop(var, None)
    return env


def executor_figures(env: dict[str, str], large: list[str] | None) -> dict[str, Any]:
    """The executor's own list and cold first-page times, in a child process (same files).

    ``large``: the session ids to open cold (``None``: every listed task)."""
    code = f"""
import json, os, statistics, time
from hangar.executor.service import Executor
ex = Executor.open()
tasks = ex.handle("runtime.tasks.list", {{}})["tasks"]
times = []
for _ in range(20):
    t = time.perf_counter()
    ex.handle("runtime.tasks.list", {{}})
    times.append(time.perf_counter() - t)
ids = {{t["runtimeHandle"].get("sessionId"): t["localTaskId"] for t in tasks}}
wanted = {large!r}
targets = [ids[sid] for sid in wanted] if wanted is not None else [t["localTaskId"] for t in tasks]
cold = []
for local_id in targets:
    fresh = Executor(ex.settings, ex.device, ex.db, stores=ex.stores, launcher=ex.launcher)
    t = time.perf_counter()
    fresh.handle("runtime.tasks.transcript", {{"localTaskId": local_id, "limit": 50}})
    cold.append(time.perf_counter() - t)
print(json.dumps({{"list_ms": statistics.median(times) * 1000,
                  "first_page_ms": statistics.median(cold) * 1000, "ids": ids}}))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


class Server:
    """``hangar serve --port 0`` in a child process, ended by its PID."""

    def __init__(self, env: dict[str, str], demo: bool) -> None:
        args = [sys.executable, "-m", "hangar", "serve", "--port", "0"]
        self.proc = subprocess.Popen(
            [*args, "--demo"] if demo else args,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()
        self.url = self.wait_for(URL_LINE).group(1)
        token_line = self.wait_for(re.compile(r"(demo token: (\S+))|(token in (\S+))"))
        if token_line.group(2):
            self.token = token_line.group(2)
        else:
            self.token = Path(token_line.group(4)).read_text().strip()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)
            self.lines.put(line)

    def wait_for(self, pattern: re.Pattern[str], timeout: float = 300) -> re.Match[str]:
        """The first line printed so far (or within ``timeout``) that matches ``pattern``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.output):
                match = pattern.search(line)
                if match:
                    return match
            if self.proc.poll() is not None:
                raise RuntimeError("hangar serve exited:\n" + "".join(self.output))
            try:
                self.lines.get(timeout=0.5)
            except queue.Empty:
                continue
        raise RuntimeError(f"no line matching {pattern.pattern!r}:\n" + "".join(self.output))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=20)


async def concurrent_transcripts(
    url: str, token: str, address: dict[str, str], n: int
) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=n)
    headers = {"Authorization": f"Bearer {token}"}
    transport = httpx.AsyncHTTPTransport(limits=limits, socket_options=NODELAY)
    async with httpx.AsyncClient(
        base_url=url, headers=headers, transport=transport, timeout=120, trust_env=False
    ) as client:

        async def one() -> tuple[int, float]:
            start = time.perf_counter()
            try:
                r = await client.post("/api/runtime-work/transcript", json={**address, "limit": 50})
                ok = r.status_code == 200 and len(r.json()["messages"]) == 50
            except httpx.HTTPError:
                ok = False
            return (0 if ok else 1), time.perf_counter() - start

        start = time.perf_counter()
        results = await asyncio.gather(*(one() for _ in range(n)))
        wall = time.perf_counter() - start
    latencies = sorted(t for _, t in results)
    return {
        "requests": n,
        "errors": sum(e for e, _ in results),
        "p50_ms": latencies[len(latencies) // 2] * 1000,
        "p95_ms": latencies[int(len(latencies) * 0.95) - 1] * 1000,
        "wall_s": wall,
    }


async def list_under_load(url: str, token: str) -> dict[str, Any]:
    """``BURSTS`` bursts of ``BURST`` concurrent list calls, each on its own keep-alive
    connection. The client is a few lines of raw HTTP/1.1 that read the body without
    parsing it: a full HTTP client costs more CPU per request than the server does, and on
    a 2-core machine it would be the client that the figure measures."""
    host, port = url.removeprefix("http://").split(":")
    request = (
        f"GET /api/runtime-work HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n\r\n"
    ).encode()
    connections = [await asyncio.open_connection(host, int(port)) for _ in range(BURST)]
    for _, writer in connections:
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    async def one(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> tuple[int, float, int]:
        start = time.perf_counter()
        writer.write(request)
        status = int((await reader.readline()).split()[1])
        length = 0
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        body = await reader.readexactly(length)
        return status, time.perf_counter() - start, len(body)

    try:
        await asyncio.gather(*(one(r, w) for r, w in connections))  # warm every connection
        results: list[tuple[int, float, int]] = []
        for _ in range(BURSTS):
            results += await asyncio.gather(*(one(r, w) for r, w in connections))
    finally:
        for _, writer in connections:
            writer.close()
    latencies = sorted(t for _, t, _ in results)
    return {
        "requests": len(results),
        "concurrency": BURST,
        "errors": sum(status != 200 for status, _, _ in results),
        "body_kb": round(results[0][2] / 1024, 1),
        "p50_ms": round(latencies[len(latencies) // 2] * 1000, 2),
        "p95_ms": round(latencies[int(len(latencies) * 0.95) - 1] * 1000, 2),
    }


def serial_list_ms(url: str, token: str, times: int = 20) -> float:
    auth = {"Authorization": f"Bearer {token}"}
    transport = httpx.HTTPTransport(socket_options=NODELAY)
    with httpx.Client(
        base_url=url, headers=auth, timeout=60, trust_env=False, transport=transport
    ) as http:
        http.get("/api/runtime-work")
        samples = []
        for _ in range(times):
            start = time.perf_counter()
            assert http.get("/api/runtime-work").status_code == 200
            samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def run_list_load(sessions: int) -> dict[str, Any]:
    """A served home of ``sessions`` small Claude sessions: the list under load."""
    with tempfile.TemporaryDirectory(prefix="hangar-bench-list-") as tmp:
        root = Path(tmp)
        make_home(root, sessions)
        server = Server(bench_env(root), demo=False)
        try:
            server.wait_for(re.compile(r"indexing: done"))
            server.wait_for(ARMED_LINE)
            single = serial_list_ms(server.url, server.token)
            load = asyncio.run(list_under_load(server.url, server.token))
        finally:
            server.stop()
    return {"sessions": sessions, "list_ms": round(single, 2), **load}


def demo_corpus_home() -> Path:
    from hangar.hub.demo import demo_corpus

    return demo_corpus()


def run_demo() -> dict[str, Any]:
    """``hangar serve --demo``: list and cold first pages of every demo session."""
    with tempfile.TemporaryDirectory(prefix="hangar-bench-demo-") as tmp:
        env = bench_env(Path(tmp))
        server = Server(env, demo=True)
        try:
            server.wait_for(re.compile(r"indexing: done"))
            auth = {"Authorization": f"Bearer {server.token}"}
            with httpx.Client(
                base_url=server.url, headers=auth, timeout=60, trust_env=False
            ) as http:
                body = http.get("/api/runtime-work").json()
                listed = [t for p in body["projects"] for t in p["tasks"]] + body["conversations"]
                list_times = []
                for _ in range(20):
                    start = time.perf_counter()
                    http.get("/api/runtime-work")
                    list_times.append(time.perf_counter() - start)
                cold = []
                for task in listed:
                    address = {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]}
                    start = time.perf_counter()
                    http.post("/api/runtime-work/transcript", json={**address, "limit": 50})
                    cold.append(time.perf_counter() - start)
        finally:
            server.stop()
        # The demo's own HANGAR_HOME lives beside its temp copy, which ends with the server:
        # measure the executor on a fresh copy of the corpus.
        copy = Path(tmp) / "demo-copy"
        shutil.copytree(demo_corpus_home(), copy / "home", symlinks=True)
        baseline = executor_figures(bench_env(copy), None)
    return {
        "sessions": len(listed),
        "list_ms": round(statistics.median(list_times) * 1000, 2),
        "executor_list_ms": round(baseline["list_ms"], 2),
        "transcript_first_page_ms": round(statistics.median(cold) * 1000, 2),
        "executor_first_page_ms": round(baseline["first_page_ms"], 2),
    }


def run(large_mb: float, small: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="hangar-bench-hub-") as tmp:
        root = Path(tmp)
        make_home(root, small)
        env = bench_env(root)
        server = Server(env, demo=False)
        try:
            server.wait_for(re.compile(r"indexing: done"))
            large = add_large_sessions(root, large_mb)
            auth = {"Authorization": f"Bearer {server.token}"}
            with httpx.Client(
                base_url=server.url,
                headers=auth,
                timeout=120,
                trust_env=False,
                transport=httpx.HTTPTransport(socket_options=NODELAY),
            ) as http:
                body = http.get("/api/runtime-work").json()
                tasks = [t for p in body["projects"] for t in p["tasks"]]
                by_sid = {t["runtimeHandle"].get("sessionId"): t for t in tasks}
                list_times = []
                for _ in range(20):
                    start = time.perf_counter()
                    assert http.get("/api/runtime-work").status_code == 200
                    list_times.append(time.perf_counter() - start)
                cold = []
                for sid in large:
                    task = by_sid[sid]
                    address = {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]}
                    start = time.perf_counter()
                    r = http.post("/api/runtime-work/transcript", json={**address, "limit": 50})
                    cold.append(time.perf_counter() - start)
                    assert r.status_code == 200, r.text
            concurrent = asyncio.run(concurrent_transcripts(server.url, server.token, address, 200))
        finally:
            server.stop()
        # The executor's own first open of the same never-read files: a fresh executor and a
        # fresh executor.db, after the server stopped (same OS file cache for both).
        baseline = executor_figures(dict(env, HANGAR_HOME=env["HANGAR_HOME"] + "-executor"), large)
    list_ms = statistics.median(list_times) * 1000
    first_ms = statistics.median(cold) * 1000
    ratio = first_ms / baseline["first_page_ms"]
    return {
        "sessions": len(tasks),
        "large_session_mb": large_mb,
        "list_ms": round(list_ms, 2),
        "executor_list_ms": round(baseline["list_ms"], 2),
        "list_ratio": round(list_ms / baseline["list_ms"], 2),
        "transcript_first_page_ms": round(first_ms, 1),
        "executor_first_page_ms": round(baseline["first_page_ms"], 1),
        "transcript_ratio": round(ratio, 3),
        "concurrent": {
            k: round(v, 2) if isinstance(v, float) else v for k, v in concurrent.items()
        },
        "targets": {
            "list_le_50ms": list_ms <= 50,
            "transcript_ratio_le_1_2": ratio <= 1.2,
            "concurrent_no_errors": concurrent["errors"] == 0,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--large-mb", type=float, default=8.0)
    parser.add_argument("--small", type=int, default=133, help="small sessions (+3 large)")
    parser.add_argument("--load-sessions", type=int, default=2000)
    args = parser.parse_args()
    figures = run(args.large_mb, args.small)
    # Each on a server of its own, idle once the watcher is armed: what one list costs under
    # load, not what the background indexing of the run above costs meanwhile.
    small = figures["list_under_load"] = run_list_load(args.small + 3)
    large = figures["list_under_load_large"] = run_list_load(args.load_sessions)
    figures["targets"]["list_under_load_p95_le_30ms"] = (
        small["p95_ms"] <= 30 and not small["errors"]
    )
    figures["targets"]["list_under_load_large_p95_le_60ms"] = (
        large["p95_ms"] <= 60 and not large["errors"]
    )
    figures["demo"] = run_demo()
    figures["targets"]["demo_list_le_50ms"] = figures["demo"]["list_ms"] <= 50
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
    if not all(figures["targets"].values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
