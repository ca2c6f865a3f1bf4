"""Hardening benchmark: hostile input must cost what ordinary input costs.

    python bench/hardening.py --json [--mb 1] [--rounds 20]

Figures, each against a baseline measured in the same run:

* ``redaction`` — redacting ``--mb`` MB of text shaped against backtracking patterns (one long
  word of a keyword, keyword+separator repeated, database URLs without ``@``, a key block
  without its end, bearer headers, home paths, dense real secrets, random trigger
  characters), in the process; ``ms`` per shape (best of 3), ``ratio`` to redacting the same
  amount of ordinary tool output (prose, code, paths). Targets: no shape costs more than 5×
  that (the old patterns took
  minutes on the first shape: quadratic); ``worst_ms`` under 50 ms is reported as
  ``under_50ms`` (it holds on an idle machine of this class; a loaded one slows every figure,
  the baseline included, which is why the ratio is the target).
* ``hub`` — a real ``hangar serve`` (generated Claude sessions in a temp HOME): median
  latency of ``GET /api/runtime-work`` and of a transcript page, first quiet (the baseline),
  then while one client posts 1 MB run messages back to back (a flood, not one message) and a
  FIFO named like a session sits in the session folder (``ratio`` = under attack / quiet;
  ``errors`` must be 0). Target: ratio ≤ 10 — the flood's requests share the CPU with the
  measured ones on this 2-core machine class; before the fixes one such post stalled every
  route for minutes and a FIFO wedged the list for good (no answer at all).

The server is ended by its PID; everything lives in a temp dir that is removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import string
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hangar.redaction import redact_text
from hub import NODELAY, Server, bench_env, write_session

ORDINARY = (
    "the build failed because a fixture path moved; update the loader and rerun tests\n"
    "def load_config(path: str) -> dict[str, int]:\n"
    "    data = json.loads(Path(path).read_text())  # e.g. /srv/app/config.json\n"
    "    return {key: int(value) - 1 for key, value in data.items()}\n"
)
"""Ordinary tool output: prose, code, a path — every character some rule waits for."""


def _repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def shapes(size: int) -> dict[str, str]:
    rnd = random.Random(12)
    triggers = string.ascii_letters + "  =:_-/@."
    return {
        "one long word (TOKEN…)": _repeat("TOKEN", size),
        "keyword and separator (TOKEN=…)": _repeat("TOKEN=", size),
        "URL without @ (postgres://a:…)": _repeat("postgres://a:", size),
        "key block without end": "-----BEGIN PRIVATE KEY-----" + _repeat("-a", size),
        "bearer headers": _repeat("Bearer ", size),
        "home paths": _repeat("/home/", size),
        "dense secrets (API_KEY=…)": _repeat("API_KEY=abcd1234 ", size),
        "random trigger characters": "".join(rnd.choice(triggers) for _ in range(size)),
    }


def best_ms(text: str, rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        redact_text(text)
        best = min(best, time.perf_counter() - start)
    return best * 1000


def redaction_figures(mb: float) -> dict[str, Any]:
    size = int(mb * (1 << 20))
    baseline = best_ms(_repeat(ORDINARY, size))
    figures = {name: best_ms(text) for name, text in shapes(size).items()}
    return {
        "bytes": size,
        "baseline_ordinary_ms": round(baseline, 2),
        "shapes": {
            name: {"ms": round(ms, 2), "ratio": round(ms / baseline, 2)}
            for name, ms in figures.items()
        },
        "worst_ms": round(max(figures.values()), 2),
        "worst_ratio": round(max(figures.values()) / baseline, 2),
        "under_50ms": max(figures.values()) < 50,
    }


def _median_ms(call: Any, rounds: int) -> tuple[float, int]:
    times, errors = [], 0
    for _ in range(rounds):
        start = time.perf_counter()
        try:
            ok = call()
        except httpx.HTTPError:
            ok = False
        times.append(time.perf_counter() - start)
        errors += 0 if ok else 1
    return statistics.median(times) * 1000, errors


def hub_figures(rounds: int) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="hangar-bench-hardening-"))
    server: Server | None = None
    try:
        home = root / "home"
        for i in range(40):
            write_session(home, f"dddddddd-0000-4000-8000-{i:012d}", f"/srv/hard/p{i % 5}", 8000)
        big = write_session(home, "eeeeeeee-0000-4000-8000-000000000000", "/srv/hard/big", 2e6)
        server = Server(bench_env(root), demo=False)
        transport = httpx.HTTPTransport(socket_options=NODELAY)
        headers = {"Authorization": f"Bearer {server.token}"}
        client = httpx.Client(
            base_url=server.url, headers=headers, transport=transport, timeout=60, trust_env=False
        )
        tasks = [t for p in client.get("/api/runtime-work").json()["projects"] for t in p["tasks"]]
        task = next(t for t in tasks if t["runtimeHandle"].get("sessionId") == big.stem)
        address = {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]}

        def listing() -> bool:
            return client.get("/api/runtime-work").status_code == 200

        def page() -> bool:
            answer = client.post("/api/runtime-work/transcript", json={**address, "limit": 50})
            return answer.status_code == 200

        page()  # the first open reads the file; the figures are of warm pages
        quiet = {"list": _median_ms(listing, rounds), "transcript": _median_ms(page, rounds)}

        issue = client.post("/api/issues", json={"title": "bench"}).json()
        run = client.post(f"/api/issues/{issue['key']}/local-runs", json={"cliName": "x"}).json()
        stop = threading.Event()
        posted = [0, 0]  # messages, errors

        def poster() -> None:
            poster_client = httpx.Client(
                base_url=server.url if server else "", headers=headers, timeout=60,
                trust_env=False,
            )  # fmt: skip
            body = "TOKEN=" * ((1 << 20) // 6) + "x" * 8  # 1 MB, adversarial for redaction
            with poster_client:
                while not stop.is_set():
                    answer = poster_client.post(
                        f"/api/local-runs/{run['id']}/messages",
                        json={"type": "tool_result", "sourceKey": f"k{posted[0]}", "output": body},
                    )
                    posted[0 if answer.status_code == 201 else 1] += 1

        fifo = big.parent / "held-ffffffff-0000-4000-8000-000000000000.jsonl"
        os.mkfifo(fifo)
        thread = threading.Thread(target=poster, daemon=True)
        thread.start()
        time.sleep(0.5)  # let the poster be mid-stream before measuring
        attacked = {"list": _median_ms(listing, rounds), "transcript": _median_ms(page, rounds)}
        stop.set()
        thread.join(60)
        client.close()
        out: dict[str, Any] = {"messagesPosted": posted[0], "postErrors": posted[1]}
        for name in ("list", "transcript"):
            out[name] = {
                "quiet_ms": round(quiet[name][0], 2),
                "under_attack_ms": round(attacked[name][0], 2),
                "ratio": round(attacked[name][0] / quiet[name][0], 2),
                "errors": quiet[name][1] + attacked[name][1],
            }
        return out
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--mb", type=float, default=1.0, help="size of each redaction input")
    parser.add_argument("--rounds", type=int, default=20, help="requests per latency figure")
    args = parser.parse_args()
    figures: dict[str, Any] = {
        "redaction": redaction_figures(args.mb),
        "hub": hub_figures(args.rounds),
    }
    hub = figures["hub"]
    figures["targets"] = {
        "redaction_worst_ratio_le_5": figures["redaction"]["worst_ratio"] <= 5,
        "list_ratio_le_10": hub["list"]["ratio"] <= 10,
        "transcript_ratio_le_10": hub["transcript"]["ratio"] <= 10,
        "no_errors": hub["list"]["errors"] == hub["transcript"]["errors"] == 0,
        "messages_posted": hub["messagesPosted"] > 0 and hub["postErrors"] == 0,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
    if not all(figures["targets"].values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
