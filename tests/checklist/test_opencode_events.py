"""OpenCode's live event stream: the real ``opencode serve`` 1.18.33 (sandbox, fake model)
emits both native ``todo.updated`` events and ``todowrite`` tool parts for every change;
the mapper and the rules turn them into one update per change, owned by the request."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from hangar.agents.checklist_events import OpenCodeEventMapper
from hangar.agents.checklist_rules import ChecklistLedger
from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import builtin_scenario

pytestmark = pytest.mark.real_agents
PORT = 4096
READY = 90.0


class EventStream:
    """``GET /event`` on a socket inside the sandbox, parsed into a list by a thread."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.events: list[dict[str, Any]] = []
        self.changed = threading.Condition()
        sock.sendall(b"GET /event HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        sock.settimeout(None)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buffer = b""
        while chunk := self._recv():
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if line.startswith(b"data:"):
                    try:
                        event = json.loads(line[5:])
                    except ValueError:
                        continue  # chunked-encoding sizes and partial frames
                    with self.changed:
                        self.events.append(event)
                        self.changed.notify_all()

    def _recv(self) -> bytes:
        try:
            return self.sock.recv(65536)
        except OSError:
            return b""

    def wait_idle(self, session_id: str, timeout: float = 60.0) -> None:
        def idle() -> bool:
            return any(
                e.get("type") == "session.idle"
                and (e.get("properties") or {}).get("sessionID") == session_id
                for e in self.events
            )

        with self.changed:
            assert self.changed.wait_for(idle, timeout), "the session went idle"


class Server:
    def __init__(self, box: AgentSandbox) -> None:
        self.box = box
        self.streams: list[EventStream] = []

    def session(self) -> tuple[str, EventStream]:
        """A new session, then the event stream (opened once the server has booted)."""
        session_id = str(self.call("POST", "/session", {})["id"])
        stream = EventStream(self.box.sandbox.connect(PORT, timeout=90.0))
        self.streams.append(stream)
        return session_id, stream

    def ready(self) -> bool:
        """``GET /doc`` answers within a few seconds (opencode 1.18.33 may leave the first
        requests after start-up unanswered)."""
        try:
            self.call("GET", "/doc", timeout=5.0)
        except OSError:
            return False
        return True

    def call(
        self, method: str, path: str, body: object | None = None, timeout: float = 90.0
    ) -> Any:
        connection = http.client.HTTPConnection("127.0.0.1", PORT)
        connection.sock = self.box.sandbox.connect(PORT, timeout=timeout)
        try:
            data = None if body is None else json.dumps(body).encode()
            headers = {"Content-Type": "application/json"} if data is not None else {}
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            raw = response.read()
        finally:
            connection.close()
        assert response.status == 200, raw[:300]
        return json.loads(raw)

    def turn(self, session_id: str, scenario: str, text: str, stream: EventStream) -> None:
        self.box.sandbox.load(builtin_scenario(scenario))
        self.call(
            "POST", f"/session/{session_id}/message", {"parts": [{"type": "text", "text": text}]}
        )
        stream.wait_idle(session_id)


@pytest.fixture
def served(agent_sandbox: AgentSandbox) -> Iterator[Server]:
    cwd = agent_sandbox.workspace(
        "projects/serve", builtin_scenario("checklist-subagent").workspace
    )
    args = ["serve", "--port", str(PORT), "--hostname", "127.0.0.1"]
    process = agent_sandbox.spawn("opencode", args, cwd=cwd, stdin_pipe=False)
    server = Server(agent_sandbox)
    deadline = time.monotonic() + READY
    while not server.ready():  # readiness probe: the first requests wait for the boot
        assert process.poll() is None, "opencode serve exited"
        assert time.monotonic() < deadline, "opencode serve did not answer in time"
        time.sleep(0.5)
    try:
        yield server
    finally:
        for stream in server.streams:
            stream.sock.close()


def _lists(
    mapper: OpenCodeEventMapper, events: list[dict[str, Any]]
) -> list[tuple[str, list[str]]]:
    """The committed lists; each must come from the native event, never the tool record."""
    ledger = ChecklistLedger(native_source=True)
    updates = [u for e in events if (u := mapper.feed(e)) is not None]
    committed = ledger.apply(updates)
    assert {block.source for _, block in committed} <= {"opencode.todo"}
    return [
        (str(turn), [f"{i.content}:{i.status}" for i in block.items]) for turn, block in committed
    ]


def test_native_event_and_tool_record_commit_once(served: Server) -> None:
    """CL-001, CL-002, CL-033, CL-034: every change arrives twice (``todo.updated`` and the
    completed ``todowrite`` part); each is committed once, on the user request's turn; a
    replayed ``todo.updated`` after the session went idle (a late event) changes nothing
    (CL-035, CL-036)."""
    server = served
    session_id, stream = server.session()
    server.turn(session_id, "checklist-edits", "Edit the checklist", stream)
    events = list(stream.events)
    native = [e for e in events if e.get("type") == "todo.updated"]
    parts = [
        e
        for e in events
        if e.get("type") == "message.part.updated"
        and (e["properties"]["part"].get("tool") == "todowrite")
        and e["properties"]["part"]["state"].get("status") == "completed"
    ]
    assert len(native) == 5 and len({p["properties"]["part"]["callID"] for p in parts}) == 5
    users = [
        e["properties"]["info"]["id"]
        for e in events
        if e.get("type") == "message.updated" and e["properties"]["info"].get("role") == "user"
    ]
    turn = users[-1]
    expected = [
        (turn, ["Alpha:pending", "Beta:pending", "Gamma:pending"]),
        (turn, ["Alpha:completed", "Beta:in_progress", "Gamma:pending"]),
        (turn, ["Gamma:pending", "Alpha:completed", "Beta:in_progress"]),
        (turn, ["Gamma:pending", "Beta:completed"]),
        (turn, ["Same text:pending", "Same text:completed"]),
    ]
    assert _lists(OpenCodeEventMapper(session_id), events) == expected
    late = [*events, native[0]]
    assert _lists(OpenCodeEventMapper(session_id), late) == expected
    # CL-033 whichever comes first: each tool record moved before its native event.
    tool_first = list(events)
    for part in parts:
        tool_first.remove(part)
        tool_first.insert(tool_first.index(native[parts.index(part)]), part)
    assert tool_first != events
    assert _lists(OpenCodeEventMapper(session_id), tool_first) == expected


def test_child_session_events_never_reach_the_parent(served: Server) -> None:
    """CL-035, CL-036, CL-064: the sub-agent's ``todo.updated`` carries the child session's
    id; the parent's mapper drops it, the child's own mapper keeps it."""
    server = served
    session_id, stream = server.session()
    server.turn(session_id, "checklist-subagent", "Delegate the work", stream)
    events = list(stream.events)
    children = {
        e["properties"]["sessionID"]
        for e in events
        if e.get("type") == "todo.updated" and e["properties"]["sessionID"] != session_id
    }
    assert len(children) == 1
    [child] = children
    assert [x[1] for x in _lists(OpenCodeEventMapper(session_id), events)] == [
        ["Parent step:in_progress"]
    ]
    assert [x[1] for x in _lists(OpenCodeEventMapper(child), events)] == [["Child step:pending"]]
