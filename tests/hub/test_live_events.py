"""The session watcher: new and growing sessions reach open pages as SSE events."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from .server_process import running_hub
from .sessions import ClaudeSession

DEADLINE = 30.0


def collect_events(
    url: str, token: str, events: list[dict[str, Any]], stop: threading.Event
) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    client = httpx.Client(base_url=url, headers=headers, timeout=None, trust_env=False)
    try:
        with client, client.stream("GET", "/api/events") as response:
            name = None
            for line in response.iter_lines():
                if stop.is_set():
                    return
                if line.startswith("event: "):
                    name = line[len("event: ") :]
                elif line.startswith("data: ") and name:
                    events.append({"event": name, **json.loads(line[len("data: ") :])})
    except httpx.HTTPError:
        return  # the hub stopped


def wait_until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_an_agent_home_created_after_start_is_watched(
    isolated_home: Path, hangar_home: Path
) -> None:
    """A first Claude session in a new ~/.claude shows up live (no polling by the page)."""
    with running_hub() as hub:
        token = hub.token(hangar_home)
        printed = "".join(hub.output)
        assert "indexing: discovering sessions" in printed
        events: list[dict[str, Any]] = []
        stop = threading.Event()
        reader = threading.Thread(
            target=collect_events, args=(hub.url, token, events, stop), daemon=True
        )
        reader.start()
        wait_until(
            lambda: any(e.get("done") for e in events) or "indexing: done" in "".join(hub.output),
            "indexing",
        )
        seen = len(events)
        session = ClaudeSession(isolated_home, "66666666-ffff-4fff-8fff-000000000006", "/srv/new")
        session.user("A first session").assistant("Hello.")
        wait_until(
            lambda: any(e["event"] == "runtime.changed" and e.get("paths") for e in events[seen:]),
            "a runtime.changed event",
        )
        changed = [e for e in events[seen:] if e["event"] == "runtime.changed" and e.get("paths")]
        paths = [Path(p) for e in changed for p in e["paths"]]
        assert any(p == session.path or p in session.path.parents for p in paths)
        auth = {"Authorization": f"Bearer {token}"}
        body = httpx.get(hub.url + "/api/runtime-work", headers=auth, trust_env=False).json()
        assert [t["title"] for p in body["projects"] for t in p["tasks"]] == ["A first session"]
        stop.set()
        assert "indexing: done" in "".join(hub.output)
