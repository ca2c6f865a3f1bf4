"""Continuing a task on another device: Claude Code 2.1.332 run for real in the test sandbox,
driven by an executor in its own home connecting from 127.0.0.2, through a hub in another
home. Everything goes through the hub's HTTP API and its SSE stream, as the web UI does."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import scenario_from_dict

from .kit import hub_thread, sandbox_device, sse, wait_until

pytestmark = pytest.mark.real_agents
SLOW = 90.0


def _png() -> bytes:
    """A real (tiny, grey) PNG image."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\x80" * 8 for _ in range(8))
    header = struct.pack(">IIBBBBB", 8, 8, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))


def _play(agent_sandbox: AgentSandbox, *turns: dict[str, Any]) -> None:
    agent_sandbox.sandbox.load(scenario_from_dict({"name": "remote", "turns": list(turns)}))


def turn_event(
    events: list[dict[str, Any]], kind: str, subtask: str | None = None
) -> dict[str, Any]:
    """The first ``runtime.turn`` event of type ``kind`` (of ``subtask``) the SSE stream
    brings, waiting for it."""

    def found() -> dict[str, Any] | None:
        for event in list(events):
            mine = subtask is None or event.get("subtaskId") == subtask
            if event["event"] == "runtime.turn" and event["type"] == kind and mine:
                return event
        return None

    event: dict[str, Any] = wait_until(found, f"{kind} {subtask or ''}", deadline=SLOW)
    return event


def test_a_task_on_another_device_continues_through_the_hub(
    agent_sandbox: AgentSandbox, tmp_path: Path
) -> None:
    """RW-122, RW-127: send (with an uploaded image the device fetches from the hub), the streamed
    reply over the device's WebSocket to the hub's SSE clients with the device's identity,
    models, an approval asked and denied, cancel of a running reply and compaction all work
    for a task on a remote device as they do in process; the reply is in Claude's own file
    and in the transcript the hub reads from the device."""
    first = agent_sandbox.run_agent("claude", "hello", "Say hello")
    assert first.returncode == 0, first.stderr
    with (
        hub_thread(tmp_path / "hub") as hub,
        sandbox_device(
            agent_sandbox,
            tmp_path / "laptop",
            hub,
            "127.0.0.2",
            ("claude",),
            hub.add_device("laptop"),
        ) as executor,
        sse(hub.url, hub.token) as events,
        hub.client(timeout=SLOW) as http,
    ):
        device_id = executor.device.device_id
        (connected,) = hub.ctx.device_infos()
        assert connected.device_id == device_id and not connected.local
        view = http.get("/api/runtime-work").json()
        (task,) = [t for p in view["projects"] for t in p["tasks"]] + view["conversations"]
        assert task["deviceId"] == device_id
        address = {"deviceId": device_id, "localTaskId": task["localTaskId"]}

        models = http.post("/api/runtime-work/models", json=address).json()
        assert "sonnet" in [m["id"] for m in models["models"]]

        upload = http.post(
            "/api/runtime-work/attachments", files={"file": ("shot.png", _png(), "image/png")}
        )
        assert upload.status_code == 200, upload.text
        _play(agent_sandbox, {"text": "A small grey square, seen from afar."})
        sent = http.post(
            "/api/runtime-work/send",
            json={
                **address,
                "text": "What is in the picture?",
                "model": {"modelId": "sonnet"},
                "attachmentIds": [upload.json()["attachmentId"]],
            },
        )
        assert sent.status_code == 200, sent.text
        subtask = sent.json()["subtaskId"]
        done = turn_event(events, "response.completed", subtask)
        assert done["deviceId"] == device_id and done["localTaskId"] == task["localTaskId"]
        streamed = "".join(
            e["delta"]
            for e in list(events)
            if e["event"] == "runtime.turn"
            and e["type"] == "response.output_text.delta"
            and e["subtaskId"] == subtask
        )
        assert streamed == "A small grey square, seen from afar."
        asked = [r for r in agent_sandbox.sandbox.requests() if r["kind"] == "turn"][-1]
        assert '"type": "image"' in json.dumps(asked["body"]["messages"])
        page = http.post(
            "/api/runtime-work/transcript", json={**address, "limit": 50, "refresh": True}
        ).json()
        assert page["messages"][-1]["content"] == "A small grey square, seen from afar."

        # An approval: asked on the device, listed and answered through the hub.
        _play(agent_sandbox, {"shell": "echo denied > denied.txt"}, {"text": "I could not."})
        asking = http.post(
            "/api/runtime-work/send",
            json={**address, "text": "Write the marker", "model": {"modelId": "sonnet"}},
        ).json()["subtaskId"]
        approval = turn_event(events, "approval.requested", asking)["approval"]
        activity = http.get("/api/runtime-work/activity").json()
        assert [(a["deviceId"], a["approvalId"]) for a in activity["approvals"]] == [
            (device_id, approval["approvalId"])
        ]
        answered = http.post(
            "/api/runtime-work/approvals/answer",
            json={**address, "approvalId": approval["approvalId"], "decision": "deny"},
        )
        assert answered.status_code == 200, answered.text
        turn_event(events, "response.completed", asking)
        assert not (first.cwd / "denied.txt").exists()

        # Cancel a reply that is still streaming.
        _play(agent_sandbox, {"text": "A long answer that never gets to finish.", "delay": 30})
        long_turn = http.post(
            "/api/runtime-work/send",
            json={**address, "text": "Tell me everything", "model": {"modelId": "sonnet"}},
        ).json()["subtaskId"]
        turn_event(events, "response.output_text.delta", long_turn)
        cancelled = http.post("/api/runtime-work/cancel", json=address).json()
        assert cancelled["accepted"] is True
        turn_event(events, "response.incomplete", long_turn)

        # Compaction, Claude's own command.
        _play(agent_sandbox, {"text": "Summary of the session so far."})
        compact = http.post("/api/runtime-work/compact", json=address)
        assert compact.status_code == 200, compact.text
        compacting = compact.json()["subtaskId"]
        assert compacting == f"{task['localTaskId']}-context-compact"
        turn_event(events, "response.completed", compacting)
