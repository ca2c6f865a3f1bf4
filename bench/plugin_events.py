"""Benchmark: a provider plugin that floods events, through `hangar run`, into a real hub.

``python bench/plugin_events.py --json`` starts a hub in a temporary ``HANGAR_HOME`` and
installs a plugin whose adapter writes EVENTS text events as fast as it can. It times
``hangar run ISSUE -- flood`` end to end (adapter pipe → event reader → reporter batches →
``POST /messages/batch`` → SQLite), checks every event is stored once and in order, and, as the
baseline measured in the same run, posts the same number of messages one ``POST /messages``
at a time (what the reporter did before it batched). It prints events per second of both and
their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import httpx

TOKEN = "bench-token-0123456789abcdef0123456789"
ADAPTER = """\
#!{python}
import json, os, sys
out = os.fdopen(int(os.environ.get("HANGAR_LOCALRUN_EVENTS_FD", 1)), "w", buffering=1 << 20)
for i in range(1, int(sys.argv[1]) + 1):
    out.write(json.dumps({{"type": "text", "source": "bench", "source_key": f"flood:{{i}}",
                           "content": f"event {{i}}"}}) + "\\n")
out.flush()
"""


def start_hub(home: Path) -> tuple[subprocess.Popen[bytes], str]:
    env = {**os.environ, "HANGAR_HOME": str(home), "HANGAR_TOKEN": TOKEN}
    process = subprocess.Popen(
        [sys.executable, "-m", "hangar", "serve", "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    assert process.stdout is not None
    match = re.search(r"(http://127\.0\.0\.1:\d+)", process.stdout.readline().decode())
    assert match, "the hub did not start"
    return process, match.group(1)


def write_plugin(folder: Path) -> None:
    folder.mkdir(parents=True)
    manifest = {
        "schema_version": 1,
        "name": "flood",
        "display_name": "Flood",
        "command": "./adapter",
        "protocol": "hangar-localrun-provider.v1",
        "capabilities": {
            "interactive_pty": False,
            "structured_events": True,
            "issue_context": "none",
            "usage": False,
            "native_plan_handoff": False,
        },
    }
    (folder / "provider.json").write_text(json.dumps(manifest))
    (folder / "adapter").write_text(ADAPTER.format(python=sys.executable))
    (folder / "adapter").chmod(0o755)


def measure(events: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="hangar-bench-") as tmp:
        root = Path(tmp)
        hub, url = start_hub(root / "hub")
        try:
            client = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {TOKEN}"})
            write_plugin(root / "client" / "localrun-providers" / "flood")
            key = client.post("/api/issues", json={"title": "flood"}).json()["key"]
            env = {**os.environ, "HANGAR_HOME": str(root / "client"), "HANGAR_SERVER_URL": url,
                   "HANGAR_TOKEN": TOKEN}  # fmt: skip
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "hangar", "run", "--comments", "off", key, "--",
                 "flood", str(events)],
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                check=False,
            )  # fmt: skip
            plugin_seconds = time.perf_counter() - started
            assert done.returncode == 0, done.stderr
            run = client.get(f"/api/issues/{key}/local-runs").json()["runs"][0]
            seqs, since = [], 0
            while True:
                page = client.get(f"/api/local-runs/{run['id']}/messages",
                                  params={"since": since, "limit": 5000}).json()  # fmt: skip
                if not page["messages"]:
                    break
                seqs += [(m["seq"], m["sourceKey"]) for m in page["messages"]]
                since = page["nextSince"]
            assert seqs == [(i, f"flood:{i}") for i in range(1, events + 1)], "lost or reordered"
            baseline_run = client.post(
                f"/api/issues/{key}/local-runs", json={"cliName": "baseline", "commentsMode": "off"}
            ).json()
            started = time.perf_counter()
            for i in range(1, events + 1):
                client.post(
                    f"/api/local-runs/{baseline_run['id']}/messages",
                    json={"type": "text", "source": "bench", "sourceKey": f"one:{i}",
                          "content": f"event {i}"},
                )  # fmt: skip
            single_seconds = time.perf_counter() - started
            client.close()
        finally:
            os.killpg(hub.pid, signal.SIGTERM)
            hub.wait(30)
    return {
        "events": events,
        "plugin_run_seconds": round(plugin_seconds, 2),
        "plugin_events_per_second": round(events / plugin_seconds),
        "baseline_single_posts_per_second": round(events / single_seconds),
        "ratio_plugin_to_single_posts": round(single_seconds / plugin_seconds, 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=textwrap.dedent(__doc__ or ""))
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    figures = measure(args.events)
    print(json.dumps(figures) if args.json else json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
