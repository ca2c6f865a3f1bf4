"""Reading ``opencode.db`` while a real ``opencode serve`` writes it (OpenCode 1.18.33)."""

from __future__ import annotations

import http.client
import json
import threading
import time
from pathlib import PurePosixPath

import pytest

from hangar.agents.opencode import OpenCodeStore
from hangar.agents.registry import agent_homes
from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import scenario_from_dict

pytestmark = pytest.mark.real_agents

PORT = 4096
TURNS_ALONE = 2
TURNS_READ = 4


def _http(box: AgentSandbox, method: str, path: str, body: bytes) -> tuple[int, bytes]:
    """One request to the server in the sandbox; a turn may take long on a busy machine,
    so the socket waits up to two minutes (the sandbox helper's default is 10 s)."""
    connection = http.client.HTTPConnection("127.0.0.1", PORT)
    connection.sock = box.sandbox.connect(PORT, timeout=120)
    try:
        connection.request(method, path, body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def _wait_listening(process_stdout: object, deadline: float) -> str:
    """Read the server's stdout until it says it listens (its own readiness signal)."""
    seen: list[str] = []
    assert hasattr(process_stdout, "readline")
    while time.monotonic() < deadline:
        line = process_stdout.readline().decode("utf-8", "replace")
        if not line:
            break
        seen.append(line)
        if "listening" in line:
            return line
    raise AssertionError(f"opencode serve did not start: {seen!r}")


def test_reading_beside_a_live_opencode_serve(agent_sandbox: AgentSandbox) -> None:
    """The reader never fails and never blocks the writer: turns driven through
    ``POST /session/{id}/message`` while a loop reads the database take no longer than turns
    without the reader (allowing for noise), and every read is a consistent snapshot."""
    total = TURNS_ALONE + TURNS_READ
    turns: list[dict[str, object]] = []
    for n in range(total):
        items = [{"content": f"Turn {n} step {k}", "status": "pending"} for k in range(3)]
        turns += [{"plan": {"items": items}}, {"text": f"Turn {n} done."}]
    box = agent_sandbox
    box.sandbox.load(scenario_from_dict({"name": "serve-turns", "title": "Served", "turns": turns}))
    workdir = box.workspace("projects/served", scenario_from_dict({"turns": []}).workspace)
    server = box.spawn(
        "opencode",
        ["serve", "--port", str(PORT), "--hostname", "127.0.0.1"],
        cwd=workdir,
        stdin_pipe=False,
    )
    _wait_listening(server.stdout, time.monotonic() + 60)
    status, body = _http(box, "POST", "/session", b"{}")
    assert status == 200, body
    session_id = json.loads(body)["id"]

    def turn(n: int) -> float:
        started = time.monotonic()
        payload = json.dumps({"parts": [{"type": "text", "text": f"Turn {n}"}]}).encode()
        status, body = _http(box, "POST", f"/session/{session_id}/message", payload)
        assert status == 200, body
        return time.monotonic() - started

    alone = [turn(n) for n in range(TURNS_ALONE)]

    home = agent_homes({"HOME": str(box.host(box.homes.home))})["opencode"]
    store = OpenCodeStore(home)
    stop = threading.Event()
    errors: list[BaseException] = []
    counts: list[int] = []

    def read_loop() -> None:
        try:
            while not stop.is_set():
                source = next(s for s in store.discover() if s.session_id == session_id)
                loaded = store.load(source)
                counts.append(len(loaded.messages))
        except BaseException as exc:
            errors.append(exc)

    reader = threading.Thread(target=read_loop)
    reader.start()
    try:
        with_reader = [turn(n) for n in range(TURNS_ALONE, total)]
    finally:
        stop.set()
        reader.join()
    assert errors == []
    assert len(counts) > TURNS_READ and counts == sorted(counts)
    # Generous for a shared, busy machine; a reader holding a lock would stall the writer for
    # its busy timeout (seconds) or fail the turn outright.
    assert max(with_reader) < 3 * max(alone) + 5.0, (alone, with_reader)
    final = store.load(next(s for s in store.discover() if s.session_id == session_id))
    assert [m.role for m in final.messages] == ["user", "assistant"] * total
    assert final.summary.checklist is not None
    assert final.summary.checklist.items[0].content == f"Turn {total - 1} step 0"
    assert PurePosixPath(final.summary.workspace_path or "").name == "served"
