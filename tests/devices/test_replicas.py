"""Two ``hangar serve`` replicas on one real PostgreSQL (started by the test)."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from hub.postgres_server import (  # tests/hub, a sibling package
    PostgresInstance,
    postgres_instance,
    skip_unless_available,
)
from hub.sessions import ClaudeSession

from .kit import Device, Hub, devices, hub_process, sse, wait_until

TOKEN = "replica-token-0123456789abcdef0123456"


@pytest.fixture
def postgres() -> Iterator[PostgresInstance]:
    skip_unless_available()
    with postgres_instance() as server:
        yield server


@contextmanager
def replicas(root: Path, url: str, count: int = 2) -> Iterator[list[Hub]]:
    env = {
        "HANGAR_DATABASE_URL": url,
        "HANGAR_TOKEN": TOKEN,
        "HANGAR_DEVICE_FANOUT_TIMEOUT_SECONDS": "5",
        "HANGAR_DEVICE_RPC_TIMEOUT_SECONDS": "30",
    }
    with ExitStack() as stack:
        yield [
            stack.enter_context(hub_process(root / f"replica-{n}", "--no-executor", **env))
            for n in range(count)
        ]


def _issue(hub: Hub, title: str) -> str:
    response = hub.post("/api/issues", {"title": title})
    assert response.status_code == 201, response.text
    return str(response.json()["key"])


def _transcript(hub: Hub, device_id: str, task_id: str, timeout: float = 60) -> httpx.Response:
    body = {"deviceId": device_id, "localTaskId": task_id}
    return hub.post("/api/runtime-work/transcript", body, timeout=timeout)


def test_events_and_device_calls_cross_replicas(tmp_path: Path, postgres: PostgresInstance) -> None:
    """An issue created on replica A reaches an SSE client of replica B; a device connected
    to A serves list, search and a transcript asked through B (the call goes through the
    database to A and back)."""
    with replicas(tmp_path, postgres.url) as (a, b):
        with sse(b.url, b.token) as seen:
            key = _issue(a, "Made on A")
            wait_until(
                lambda: any(e["event"] == "issue.changed" and e["key"] == key for e in seen),
                "the issue event on B",
            )
        assert b.get(f"/api/issues/{key}")["title"] == "Made on A"

        laptop = Device("laptop", tmp_path / "laptop", "127.0.0.2", [a.url], a.add_device("laptop"))
        ClaudeSession(laptop.home, "abababab-1111-4111-8111-000000000001", "/srv/app").user(
            "Where is the lighthouse?"
        ).assistant("The lighthouse is on the hill.")
        with devices(laptop):
            a.wait_online("laptop")
            assert b.devices()["laptop"]["state"] == "online"
            view = wait_until(lambda: (v := b.get("/api/runtime-work"))["projects"] and v, "list")
            task = view["projects"][0]["tasks"][0]
            assert view["errors"] == []
            page = _transcript(b, task["deviceId"], task["localTaskId"])
            assert page.status_code == 200, page.text
            assert page.json()["messages"][-1]["content"] == "The lighthouse is on the hill."
            found = b.post("/api/runtime-work/search", {"query": "lighthouse"}).json()
            assert [r["localTaskId"] for r in found["results"]] == [task["localTaskId"]]


def test_a_replica_killed_mid_call_gives_a_clear_error_and_a_retry_works(
    tmp_path: Path, postgres: PostgresInstance
) -> None:
    """The replica holding a device's socket dies while B waits for its answer: B answers
    ``device_unavailable`` (not a hang until the timeout); the device reconnects to B, and
    the same request through B then works. Nothing is re-sent on its own."""
    with replicas(tmp_path, postgres.url) as (a, b):
        laptop = Device(
            "laptop", tmp_path / "laptop", "127.0.0.2", [a.url, b.url], a.add_device("laptop")
        )
        ClaudeSession(laptop.home, "cdcdcdcd-1111-4111-8111-000000000002", "/srv/app").user(
            "Ping"
        ).assistant("Pong.")
        with devices(laptop):
            a.wait_online("laptop")
            device_id = a.devices()["laptop"]["deviceId"]
            task = wait_until(lambda: (v := b.get("/api/runtime-work"))["projects"] and v, "list")
            task_id = task["projects"][0]["tasks"][0]["localTaskId"]

            laptop.signal(signal.SIGSTOP)  # the call will wait on the device
            answer: dict[str, Any] = {}

            def ask() -> None:
                started = time.monotonic()
                response = _transcript(b, device_id, task_id)
                answer.update(status=response.status_code, body=response.json())
                answer["elapsed"] = time.monotonic() - started

            waiting = threading.Thread(target=ask)
            waiting.start()
            waiting.join(1.5)
            assert waiting.is_alive()
            a.running.process.send_signal(signal.SIGKILL)
            a.running.process.wait(timeout=15)
            waiting.join(30)
            assert (
                answer["status"] == 503 or answer["body"]["error"]["code"] == "device_unavailable"
            )
            assert answer["body"]["error"]["code"] == "device_unavailable"
            assert "stopped answering" in answer["body"]["error"]["message"]
            assert answer["elapsed"] < 20

            laptop.signal(signal.SIGCONT)
            laptop.wait_for(f"connected to {b.url.replace('http', 'ws')}")
            b.wait_online("laptop")
            retry = _transcript(b, device_id, task_id)
            assert retry.status_code == 200, retry.text
            assert retry.json()["messages"][-1]["content"] == "Pong."


def test_postgresql_restarted_under_the_replicas(
    tmp_path: Path, postgres: PostgresInstance
) -> None:
    """After PostgreSQL restarts, both replicas serve again, a page that stayed connected to
    a replica is told to refetch (its replica may have missed events), events cross again,
    and run messages turned into comments by the two replicas' outboxes are written exactly
    once."""
    with replicas(tmp_path, postgres.url) as (a, b):
        key = _issue(a, "Before the restart")
        run = a.post(f"/api/issues/{key}/local-runs", {"cliName": "codex", "workDir": "/w"}).json()
        with sse(b.url, b.token) as open_page:
            postgres.restart()
            wait_until(lambda: _serves(a) and _serves(b), "both replicas answering again")
            # A notification sent while a replica's listener reconnects is lost (they are
            # hints, the tables are the record): events cross again once both listen again,
            # and each replica's pages are told to catch up.
            wait_until(lambda: _listens_again(a) and _listens_again(b), "both listeners back")
            wait_until(lambda: any(e["event"] == "hub.resync" for e in open_page), "the page told")
        with sse(b.url, b.token) as seen:
            after = _issue(a, "After the restart")
            wait_until(
                lambda: any(e["event"] == "issue.changed" and e["key"] == after for e in seen),
                "events crossing again",
            )
        for n in range(10):
            target = a if n % 2 else b
            for kind, content in (("user_input", f"question {n}"), ("final", f"answer {n}")):
                body = {
                    "type": kind,
                    "source": "test",
                    "sourceKey": f"{kind}-{n}",
                    "content": content,
                    "input": {"turnKey": f"t{n}"},
                }
                response = target.post(f"/api/local-runs/{run['id']}/messages", body)
                assert response.status_code in (200, 201), response.text
        expected = {f"question {n}" for n in range(10)} | {f"answer {n}" for n in range(10)}

        def bodies() -> list[str]:
            comments = b.get(f"/api/issues/{key}/comments")["comments"]
            return [c["body"].split("\n\n")[-1] for c in comments[1:]]

        wait_until(lambda: set(bodies()) >= expected, "every comment")
        assert sorted(bodies()) == sorted(expected)
        numbers = [int(i["key"].split("-")[1]) for i in b.get("/api/issues")["issues"]]
        assert sorted(numbers) == [1, 2]


def _listens_again(hub: Hub) -> bool:
    log = hub.home / "logs" / "hangar-serve.log"
    return "PostgreSQL listener connected again" in log.read_text(encoding="utf-8")


def _serves(hub: Hub) -> bool:
    try:
        with hub.client(timeout=5) as http:
            return http.get("/api/issues").status_code == 200
    except httpx.HTTPError:
        return False
