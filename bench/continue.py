"""Benchmark: continuing a real Codex thread through the hub, against Codex on its own.

``python bench/continue.py --json`` runs the pinned ``codex`` in the test kit's loopback-only
sandbox against the fake model and measures, over ROUNDS sends each:

* **agent** (the baseline, same run): a plain ``codex app-server`` client sends ``turn/start``
  and waits for the first ``item/agentMessage/delta`` (first token) and for the reply to be in
  the thread's rollout file (persisted);
* **hub**: ``POST /api/runtime-work/send`` to a local hangar (executor + hub, the resident
  app-server) and waits for the first ``response.output_text.delta`` on ``GET /api/events``
  (first streamed token) and for ``POST /api/runtime-work/transcript`` to show the reply
  (persisted reply visible).

It prints medians and the hub's overhead as ratios to the agent's own times
(``firstTokenRatio``, ``persistedRatio``). Without namespaces or the CLIs it prints
``{"skipped": reason}``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from hangar.agents.codex.app_server import CodexAppServer
from hangar.agents.registry import open_stores
from hangar.composition import LocalHangar
from hangar.testing.agent_clis import missing_binaries
from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.hub_thread import serve_local
from hangar.testing.sandbox import namespace_support
from hangar.testing.scenarios import scenario_from_dict

TOKEN = "bench-continue-token-0123456789"
REPLY = "The continued reply, streamed in several small pieces to the client."
DEADLINE = 60.0


def play(box: AgentSandbox, rounds: int) -> None:
    turns = [{"text": f"{REPLY} #{n}"} for n in range(rounds)]
    box.sandbox.load(scenario_from_dict({"name": "bench", "turns": turns}))


def wait(condition: Any, what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.002)


def agent_alone(
    box: AgentSandbox, thread_id: str, rollout: Path, rounds: int
) -> list[tuple[float, float]]:
    """First token and persisted reply of ``codex app-server`` driven directly."""
    process = box.spawn("codex", ["app-server"], cwd=box.homes.home)
    server = CodexAppServer([])
    first, ended = threading.Event(), threading.Event()

    def watch(message: dict[str, Any]) -> None:
        if message.get("method") == "item/agentMessage/delta":
            first.set()
        elif message.get("method") == "turn/completed":
            ended.set()

    times: list[tuple[float, float]] = []
    try:
        server.attach(process, timeout=60)
        server.listen(watch)
        server.request("thread/resume", {"threadId": thread_id, "excludeTurns": True})
        play(box, rounds)
        for n in range(rounds):
            first.clear()
            ended.clear()
            text = {"type": "text", "text": f"Continue {n}", "text_elements": []}
            started = time.perf_counter()
            params = {"threadId": thread_id, "input": [text], "model": "fake-model"}
            server.request("turn/start", params)
            if not first.wait(DEADLINE):
                raise TimeoutError("first delta")
            token = time.perf_counter() - started
            wait(lambda n=n: f"{REPLY} #{n}" in rollout.read_text(), "rollout")
            times.append((token, time.perf_counter() - started))
            if not ended.wait(DEADLINE):
                raise TimeoutError("turn end")
    finally:
        server.close()
    return times


def through_hub(box: AgentSandbox, hangar_home: Path, rounds: int) -> list[tuple[float, float]]:
    home = box.host(box.homes.home)
    stores = open_stores({"HOME": str(home), "CODEX_HOME": str(home / ".codex")})
    environ = {"HANGAR_HOME": str(hangar_home), "HOME": str(home)}
    local = LocalHangar.open(environ, stores={"codex": stores["codex"]}, launcher=box.launcher())
    times: list[tuple[float, float]] = []
    try:
        with serve_local(local, TOKEN, workers=False) as url:
            headers = {"Authorization": f"Bearer {TOKEN}"}
            client = httpx.Client(base_url=url, headers=headers, timeout=DEADLINE, trust_env=False)
            (task,) = [
                t for p in client.get("/api/runtime-work").json()["projects"] for t in p["tasks"]
            ]
            address = {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]}
            deltas: list[float] = []
            stop = threading.Event()

            def listen() -> None:
                with (
                    httpx.Client(
                        base_url=url, headers=headers, timeout=None, trust_env=False
                    ) as sse,
                    sse.stream("GET", "/api/events") as response,
                ):
                    for line in response.iter_lines():
                        if stop.is_set():
                            return
                        if line.startswith("data: ") and '"response.output_text.delta"' in line:
                            deltas.append(time.perf_counter())

            threading.Thread(target=listen, daemon=True).start()
            time.sleep(0.3)  # the stream is open
            # One warm-up send starts the resident app-server (a cost a user pays once).
            play(box, rounds + 1)
            client.post(
                "/api/runtime-work/send",
                json={**address, "text": "warm up", "model": {"modelId": "fake-model"}},
            )
            wait(lambda: not client.get("/api/runtime-work/activity").json()["turns"], "warm-up")
            for n in range(rounds):
                seen = len(deltas)
                started = time.perf_counter()
                sent = client.post(
                    "/api/runtime-work/send",
                    json={**address, "text": f"Continue {n}", "model": {"modelId": "fake-model"}},
                )
                sent.raise_for_status()
                wait(lambda seen=seen: len(deltas) > seen, "first streamed delta")
                token = deltas[seen] - started

                def visible(n: int = n) -> bool:
                    page = client.post(
                        "/api/runtime-work/transcript", json={**address, "limit": 5}
                    ).json()
                    return any(
                        f"{REPLY} #{n}" in (m.get("content") or "") for m in page["messages"]
                    )

                wait(visible, "reply in the transcript")
                times.append((token, time.perf_counter() - started))
                wait(
                    lambda: not client.get("/api/runtime-work/activity").json()["turns"], "turn end"
                )
            stop.set()
            client.close()
    finally:
        local.close()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    reason = namespace_support() or (
        f"agent CLIs missing: {missing_binaries()}" if missing_binaries() else None
    )
    if reason:
        print(json.dumps({"bench": "continue", "skipped": reason}))
        return 0
    with tempfile.TemporaryDirectory(prefix="hangar-bench-continue-") as tmp:
        box = AgentSandbox(Path(tmp) / "sandbox")
        box.start()
        try:
            run = box.run_agent("codex", "hello", "say hello")
            if run.returncode != 0 or not run.session_id:
                raise RuntimeError(f"codex exec failed: {run.stderr[-500:]}")
            box.offer_codex_model()
            rollout = next(p for p in run.store_files if p.name.startswith("rollout-"))
            agent = agent_alone(box, run.session_id, rollout, args.rounds)
            hub = through_hub(box, Path(tmp) / "hangar", args.rounds)
        finally:
            box.close()

    def median(values: list[tuple[float, float]], k: int) -> float:
        return statistics.median(v[k] for v in values)

    result = {
        "bench": "continue",
        "rounds": args.rounds,
        "agentFirstTokenMs": round(median(agent, 0) * 1000, 1),
        "hubFirstTokenMs": round(median(hub, 0) * 1000, 1),
        "agentPersistedMs": round(median(agent, 1) * 1000, 1),
        "hubPersistedMs": round(median(hub, 1) * 1000, 1),
    }
    result["firstTokenRatio"] = round(result["hubFirstTokenMs"] / result["agentFirstTokenMs"], 2)
    result["persistedRatio"] = round(result["hubPersistedMs"] / result["agentPersistedMs"], 2)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>20}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
