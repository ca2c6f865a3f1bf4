"""Continuing tasks through the hub: every bad input gets a clear error, nothing is written.

The hub runs over its real in-process executor and real session files; no agent CLI is on this
test's ``PATH``, so the executor's answers for a missing CLI are the real ones.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hangar.composition import LocalHangar
from hangar.executor.turn_stream import LiveTurn
from hangar.hub.events import EventBus, turn_relay
from hangar.protocol.turns import TurnAttachment

from .sessions import ClaudeSession, sample_home

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


@pytest.fixture
def sessions(isolated_home: Path) -> dict[str, ClaudeSession]:
    return sample_home(isolated_home)


def a_task(client: TestClient, title: str = "Say hello") -> dict[str, Any]:
    body = client.get("/api/runtime-work").json()
    listed = [t for p in body["projects"] for t in p["tasks"]] + body["conversations"]
    return next(t for t in listed if t["title"] == title)


def continue_task(client: TestClient) -> dict[str, Any]:
    body = client.get("/api/runtime-work").json()
    listed = [t for p in body["projects"] for t in p["tasks"]] + body["conversations"]
    return next(t for t in listed if t["runtime"] == "continue")


def error_of(response: Any) -> dict[str, Any]:
    error: dict[str, Any] = response.json()["error"]
    return error


def test_unknown_device_task_and_missing_model_are_clear_errors(
    client: TestClient, sessions: dict[str, ClaudeSession]
) -> None:
    """RW-121: no model → 400 ``bad_request``; an unknown device or task → 404; a missing
    CLI → 503 naming it; the agent's files are untouched."""
    task = a_task(client)
    before = sessions["short"].path.read_bytes()
    address = {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]}
    model = {"modelId": "sonnet"}
    cases = [
        (
            {**address, "deviceId": "not-a-device", "text": "hi", "model": model},
            404,
            "device_unavailable",
        ),
        ({**address, "localTaskId": "not-a-task", "text": "hi", "model": model}, 404, "not_found"),
        ({**address, "text": "hi"}, 400, "bad_request"),
        ({**address, "text": "hi", "model": {"modelId": ""}}, 400, "bad_request"),
        ({**address, "text": "hi", "model": model}, 503, "agent_unavailable"),
    ]
    for body, status, code in cases:
        response = client.post("/api/runtime-work/send", json=body)
        assert (response.status_code, error_of(response)["code"]) == (status, code), response.text
    assert (
        "model"
        in error_of(client.post("/api/runtime-work/send", json={**address, "text": "hi"}))[
            "message"
        ]
    )
    assert (
        "claude is not installed"
        in error_of(
            client.post("/api/runtime-work/send", json={**address, "text": "hi", "model": model})
        )["message"]
    )
    assert sessions["short"].path.read_bytes() == before


def test_shapes_the_hub_refuses(client: TestClient, sessions: dict[str, ClaudeSession]) -> None:
    """RW-156: the HTTP body has no place for a local path; malformed bodies are 422."""
    task = a_task(client)
    address = {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]}
    bad = [
        ("/send", {**address, "attachments": [{"localPath": "/etc/passwd"}]}),
        ("/send", {**address, "attachmentIds": ["a"] * 11}),
        ("/guidance", {**address, "text": "", "clientGuidanceId": "g"}),
        ("/approvals/answer", {**address, "approvalId": "x", "decision": "maybe"}),
        ("/cancel", {"localTaskId": task["localTaskId"]}),
    ]
    for path, body in bad:
        response = client.post("/api/runtime-work" + path, json=body)
        assert response.status_code == 422, (path, response.text)
        assert error_of(response)["code"] == "invalid_request"


def test_agents_hangar_cannot_continue_answer_not_supported(
    client: TestClient, state: LocalHangar, sessions: dict[str, ClaudeSession]
) -> None:
    """Other agents: 501 ``not_supported`` naming the agent and the operation; a cancel with
    nothing running is ``accepted: false``; activity is empty."""
    from agents.samples import continue_sample_home  # tests/agents, a sibling package

    home = Path(state.executor.stores["continue"].home.root)
    continue_sample_home(home)
    task = continue_task(client)
    address = {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]}
    for path, body in (
        ("/send", {**address, "text": "hi", "model": {"modelId": "m"}}),
        ("/compact", address),
        ("/guidance", {**address, "text": "x", "clientGuidanceId": "g"}),
    ):
        response = client.post("/api/runtime-work" + path, json=body)
        assert response.status_code == 501, response.text
        assert error_of(response)["code"] == "not_supported"
        assert "continue" in error_of(response)["message"]
    models = client.post("/api/runtime-work/models", json=address).json()
    assert models["models"] == [] and models["operations"] == []
    claude = a_task(client)
    cancelled = client.post(
        "/api/runtime-work/cancel",
        json={"deviceId": claude["deviceId"], "localTaskId": claude["localTaskId"]},
    )
    assert cancelled.json()["accepted"] is False
    assert client.get("/api/runtime-work/activity").json() == {"turns": [], "approvals": []}


def test_uploads_are_sniffed_limited_and_fetched_by_the_executor(
    client: TestClient, state: LocalHangar, sessions: dict[str, ClaudeSession]
) -> None:
    """RW-153, RW-155: an upload is checked (type by content, size), named by id in a send
    (an unknown one is refused), and fetched by the executor on its device (bytes and
    checksum)."""
    ok = client.post(
        "/api/runtime-work/attachments", files={"file": ("shot.png", PNG, "image/png")}
    )
    assert ok.status_code == 200, ok.text
    uploaded = ok.json()
    assert uploaded["state"] == "ready" and uploaded["sha256"] == hashlib.sha256(PNG).hexdigest()
    refused = [
        (("fake.png", b"just text", "image/png"), 415),
        (("data.zip", b"PK\x03\x04", "application/zip"), 415),
        (("notes.txt", b"\xff\xfe\x00bad", "text/plain"), 415),
        (("empty.txt", b"", "text/plain"), 400),
        (("big.txt", b"x" * (20 * 1024 * 1024 + 1), "text/plain"), 413),
    ]
    for upload, status in refused:
        response = client.post("/api/runtime-work/attachments", files={"file": upload})
        assert response.status_code == status, (upload[0], response.text)
        assert error_of(response)["message"]
    task = a_task(client)
    address = {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]}
    unknown = client.post(
        "/api/runtime-work/send",
        json={**address, "text": "look", "model": {"modelId": "sonnet"}, "attachmentIds": ["nope"]},
    )
    assert unknown.status_code == 404 and error_of(unknown)["details"]["kind"] == "attachment"
    record = TurnAttachment(
        name="shot.png",
        mime_type="image/png",
        size=len(PNG),
        attachment_id=uploaded["attachmentId"],
        sha256=uploaded["sha256"],
    )
    (file,) = state.executor.turn_inputs.resolve(task["localTaskId"], [record])
    assert file.path.read_bytes() == PNG and file.mime_type == "image/png"
    with pytest.raises(Exception, match="checksum"):
        state.executor.turn_inputs.resolve(
            task["localTaskId"],
            [
                TurnAttachment(
                    name="shot.png",
                    mime_type="image/png",
                    size=len(PNG),
                    attachment_id=uploaded["attachmentId"],
                    sha256="0" * 64,
                )
            ],
        )


def test_terminal_events_are_logged_with_identity_type_and_blocks_only(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """RW-117/RW-118: where a terminal event leaves the executor and where it reaches the
    pages, the log has device, task, subtask, type and block count — never reply text."""
    bus = EventBus()
    done = threading.Event()
    turn = LiveTurn(
        device_id="dev-1",
        local_task_id="task-1",
        runtime="codex",
        kind="reply",
        request=None,
        sink=turn_relay(bus),
        on_finished=lambda _: done.set(),
    )
    caplog.set_level(logging.INFO)
    turn.started("turn-9")
    turn.text_delta("item-1", "secret reply text")
    turn.finished("completed")
    assert done.is_set()
    lines = [r.getMessage() for r in caplog.records if "response.completed" in r.getMessage()]
    assert len(lines) == 2  # forwarded by the executor, matched by the hub (0 subscribers)
    for line in lines:
        assert "dev-1" in line and "task-1" in line and "turn-9" in line and "1" in line
        assert "secret" not in line
    assert "matched 0 subscribers" in lines[1]
    assert json.dumps([r.getMessage() for r in caplog.records]).count("secret") == 0
