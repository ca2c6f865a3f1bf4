"""Large answers cross in chunks; a slow call never holds up the others on its connection."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from hangar.executor.remote.client import ExecutorClient
from hangar.executor.remote.run import RemoteOptions, build_client
from hangar.executor.remote.session import executor_handler
from hangar.executor.service import Executor
from hangar.protocol import methods as m
from hangar.protocol.codec import to_json
from hangar.protocol.frames import MAX_FRAME_BYTES
from hangar.protocol.tasks import TranscriptRequest
from hub.sessions import ClaudeSession  # tests/hub, a sibling package

from .kit import ThreadHub, client_thread, device_env, hub_thread, wait_until


def _device(hub: ThreadHub, root: Path) -> tuple[Executor, str]:
    env = device_env(root, HANGAR_DEVICE_NAME="laptop")
    return Executor.open(env), hub.add_device("laptop")


def test_a_transcript_larger_than_a_frame_arrives_whole(tmp_path: Path) -> None:
    """A 3 MB transcript page (frames are capped at 1 MiB) comes through the hub exactly as
    the device's executor reads it, and the device stays connected."""
    session = ClaudeSession(
        tmp_path / "laptop" / "home", "cccccccc-3333-4333-8333-0003", "/srv/big"
    )
    for n in range(25):
        session.user(f"Part {n}: " + "question " * 7000).assistant(
            f"Answer {n}: " + "word " * 12000
        )
    with hub_thread(tmp_path / "hub") as hub:
        executor, token = _device(hub, tmp_path / "laptop")
        try:
            client = build_client(executor, RemoteOptions(hubs=[hub.url], token=token))
            with client_thread(client):
                wait_until(lambda: hub.ctx.device_infos(), "the device online")
                task = executor.list_tasks()[0]
                body = {"deviceId": executor.device.device_id, "localTaskId": task.local_task_id}
                with hub.client(timeout=60) as http:
                    response = http.post("/api/runtime-work/transcript", json=body)
                assert response.status_code == 200, response.text
                assert len(response.content) > 3 * MAX_FRAME_BYTES
                local = executor.call(
                    m.TASKS_TRANSCRIPT.name, TranscriptRequest(local_task_id=task.local_task_id)
                )
                answer = response.json()
                assert answer == {"deviceId": executor.device.device_id, **to_json(local)}
                assert client.connections == 1
                assert hub.ctx.device_infos()[0].state == "online"
        finally:
            executor.close()


def _slow_search(executor: Executor, release: threading.Event, started: threading.Event) -> Any:
    """The executor's own handler, except that a search waits for ``release`` first: a
    stand-in for a search over a huge corpus."""
    handle = executor_handler(executor)

    def slow(method: str, body: bytes) -> bytes:
        if method == m.TASKS_SEARCH.name:
            started.set()
            release.wait(30)
        return handle(method, body)

    return slow


def test_a_slow_call_does_not_hold_up_the_others(tmp_path: Path) -> None:
    """While one search is still running on the device, the list and a transcript of the
    same device answer; with every worker taken the device reports busy, then online."""
    ClaudeSession(tmp_path / "laptop" / "home", "dddddddd-4444-4444-8444-0004", "/srv/app").user(
        "Find the needle"
    ).assistant("The needle is here.")
    with hub_thread(tmp_path / "hub", HANGAR_DEVICE_FANOUT_TIMEOUT_SECONDS="30") as hub:
        executor, token = _device(hub, tmp_path / "laptop")
        release, started = threading.Event(), threading.Event()
        try:
            plain = build_client(executor, RemoteOptions(hubs=[hub.url], token=token))
            client = ExecutorClient(
                hubs=plain.hubs,
                token=token,
                hello=plain.hello,
                handler=_slow_search(executor, release, started),
                workers=2,
            )
            with client_thread(client):
                wait_until(lambda: hub.ctx.device_infos(), "the device online")
                found: dict[str, Any] = {}

                def search() -> None:
                    with hub.client(timeout=60) as http:
                        found.update(
                            http.post("/api/runtime-work/search", json={"query": "needle"}).json()
                        )

                waiting = threading.Thread(target=search)
                waiting.start()
                assert started.wait(30)
                with hub.client() as http:
                    view = http.get("/api/runtime-work").json()
                    task = view["projects"][0]["tasks"][0]
                    page = http.post(
                        "/api/runtime-work/transcript",
                        json={"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]},
                    ).json()
                assert [msg["content"] for msg in page["messages"]][-1] == "The needle is here."
                assert waiting.is_alive() and not found
                # One worker is still taken by the search: the device is not busy.
                wait_until(lambda: hub.ctx.device_infos()[0].state == "online", "online")

                second = threading.Thread(target=search)  # takes the other worker
                second.start()
                wait_until(lambda: hub.ctx.device_infos()[0].state == "busy", "busy")
                release.set()
                waiting.join(30)
                second.join(30)
                assert [r["title"] for r in found["results"]] == ["Find the needle"]
                wait_until(lambda: hub.ctx.device_infos()[0].state == "online", "online again")
        finally:
            release.set()
            executor.close()
