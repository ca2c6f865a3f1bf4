"""Benchmark: concurrent local runs posting messages to a real ``hangar serve``.

``python bench/localrun.py --json`` starts a hub in a temporary ``HANGAR_HOME``, creates one
issue and RUNS runs, then posts MESSAGES messages per run from RUNS concurrent clients (plus a
share of re-sent duplicates, as a spool re-sync would). It checks that every message is stored
exactly once with contiguous ``seq`` and prints p50/p95/p99 post latency, throughput and the
hub's CPU time per stored message (user + system time of the hub process from ``/proc``).
"""

from __future__ import annotations

import argparse
import json
import os
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

TOKEN = "bench-token-0123456789abcdef-0123456789"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of ``pid`` (and its reaped children) from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def message(run: int, n: int) -> dict[str, Any]:
    kind = "user_input" if n % 20 == 0 else "final" if n % 20 == 19 else "tool_result"
    turn = n // 20
    body: dict[str, Any] = {
        "type": kind,
        "source": "bench",
        "sourceKey": f"bench:run:{run}:turn:{turn}:item:{n}",
        "input": {"turnKey": f"{run}:{turn}"},
    }
    if kind == "tool_result":
        body.update(tool="exec_command", output=f"line {n}\n" * 8)
    else:
        body["content"] = f"message {n} of run {run}"
    return body


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--duplicates", type=float, default=0.1, help="share re-sent")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="hangar-bench-") as tmp:
        port = free_port()
        env = dict(os.environ, HANGAR_HOME=f"{tmp}/hangar", HOME=f"{tmp}/home", HANGAR_TOKEN=TOKEN)
        Path(env["HOME"]).mkdir()
        hub = subprocess.Popen(
            [sys.executable, "-m", "hangar", "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        headers = {"Authorization": f"Bearer {TOKEN}"}
        try:
            client = httpx.Client(base_url=url, headers=headers, timeout=30, trust_env=False)
            deadline = time.monotonic() + 60
            while True:
                try:
                    if client.get("/api/workspace").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline or hub.poll() is not None:
                    raise SystemExit("hub did not start")
                time.sleep(0.1)
            key = client.post("/api/issues", json={"title": "bench"}).json()["key"]
            runs_url = f"/api/issues/{key}/local-runs"
            run_ids = [
                client.post(runs_url, json={"cliName": "bench"}).json()["id"]
                for _ in range(args.runs)
            ]
            latencies: list[float] = []
            statuses: dict[int, int] = {}
            lock = threading.Lock()
            dup_every = int(1 / args.duplicates) if args.duplicates > 0 else 0

            def poster(index: int, run_id: str) -> None:
                own: list[float] = []
                seen: dict[int, int] = {}
                with httpx.Client(base_url=url, headers=headers, timeout=30) as http:
                    for n in range(args.messages):
                        sends = [message(index, n)]
                        if dup_every and n % dup_every == 0 and n:
                            sends.append(message(index, n - 1))  # a re-sent earlier message
                        for body in sends:
                            start = time.perf_counter()
                            response = http.post(f"/api/local-runs/{run_id}/messages", json=body)
                            own.append(time.perf_counter() - start)
                            seen[response.status_code] = seen.get(response.status_code, 0) + 1
                with lock:
                    latencies.extend(own)
                    for code, count in seen.items():
                        statuses[code] = statuses.get(code, 0) + count

            cpu_before = cpu_seconds(hub.pid)
            started = time.perf_counter()
            threads = [
                threading.Thread(target=poster, args=(i, run_id))
                for i, run_id in enumerate(run_ids)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            wall = time.perf_counter() - started
            cpu = cpu_seconds(hub.pid) - cpu_before

            exactly_once = True
            stored = 0
            for run_id in run_ids:
                got: list[dict[str, Any]] = []
                since = 0
                while True:
                    page = client.get(
                        f"/api/local-runs/{run_id}/messages", params={"since": since, "limit": 5000}
                    ).json()
                    got += page["messages"]
                    if not page["messages"]:
                        break
                    since = page["nextSince"]
                keys = [m["sourceKey"] for m in got]
                stored += len(got)
                exactly_once &= len(keys) == args.messages == len(set(keys))
                exactly_once &= [m["seq"] for m in got] == list(range(1, args.messages + 1))
            client.close()
        finally:
            os.killpg(hub.pid, signal.SIGTERM)
            hub.wait(30)

    ordered = sorted(latencies)

    def pct(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 2)

    result = {
        "bench": "localrun",
        "runs": args.runs,
        "messagesPerRun": args.messages,
        "posts": len(latencies),
        "statusCounts": {str(k): v for k, v in sorted(statuses.items())},
        "stored": stored,
        "exactlyOnce": exactly_once,
        "p50Ms": pct(0.50),
        "p95Ms": pct(0.95),
        "p99Ms": pct(0.99),
        "meanMs": round(statistics.fmean(latencies) * 1000, 2),
        "postsPerSecond": round(len(latencies) / wall, 1),
        "wallSeconds": round(wall, 2),
        "hubCpuSeconds": round(cpu, 2),
        "hubCpuMsPerStoredMessage": round(cpu * 1000 / max(stored, 1), 3),
    }
    if args.json:
        print(json.dumps(result))
    else:
        for name, value in result.items():
            print(f"{name:>26}: {value}")
    return 0 if exactly_once else 1


if __name__ == "__main__":
    raise SystemExit(main())
