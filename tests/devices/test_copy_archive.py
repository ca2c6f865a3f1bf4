"""Copying a task of a non-git project to another device as an archive (RW-314..318): real
Codex sessions in two sandboxes, two executors on 127.0.0.2/127.0.0.3, a real hub, and for
the fallback an S3-compatible server (moto in server mode) started by the test on loopback."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto.server import ThreadedMotoServer

from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import scenario_from_dict

from .test_copy_across import bind, play, send, transcript, two_devices
from .test_remote_turns import SLOW

pytestmark = pytest.mark.real_agents
BINARY = b"\x00\x01\xfe\xff" * 4096 + b"tail\r\n"
S3_KEYS = {"access": "transfer-test-access", "secret": "transfer-test-secret-0123456789"}


def plain_project(box: AgentSandbox, name: str, prompt: str, files: bool) -> Path:
    """``projects/<name>`` (no git) in ``box``'s home where Codex ran once."""
    project = box.host(box.homes.home) / "projects" / name
    project.mkdir(parents=True)
    if files:
        (project / "notes.md").write_text("# Notes\n")
        (project / "assets").mkdir()
        (project / "assets" / "image.bin").write_bytes(BINARY)
    scenario = scenario_from_dict({"name": name, "turns": [{"text": "Looked at it."}]})
    run = box.run_agent("codex", scenario, prompt, cwd=f"projects/{name}")
    assert run.returncode == 0, run.stderr
    box.offer_codex_model()
    return project


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def s3_server() -> Iterator[str]:
    """An S3-compatible server (moto) on loopback with a bucket ``transfers``."""
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    url = f"http://127.0.0.1:{port}"
    try:
        boto3.client(
            "s3", endpoint_url=url, region_name="us-east-1",
            aws_access_key_id=S3_KEYS["access"], aws_secret_access_key=S3_KEYS["secret"],
        ).create_bucket(Bucket="transfers")  # fmt: skip
        yield url
    finally:
        server.stop()


def copy_first_turn(
    hub: Any, desk: Any, laptop: Any, target_project: Path, events: list[dict[str, Any]]
) -> tuple[dict[str, str], Any]:
    """Two more turns on the laptop's task, then a copy at the second one to the desk."""
    with hub.client(timeout=SLOW) as http:
        view = http.get("/api/runtime-work").json()
        tasks = [t for p in view["projects"] for t in p["tasks"]]
        (source,) = [t for t in tasks if t["deviceId"] == laptop.device.device_id]
        address = {"deviceId": source["deviceId"], "localTaskId": source["localTaskId"]}
        middle = send(http, events, address, "Second question")
        send(http, events, address, "Third question")
        bind(http, address, desk.device.device_id, target_project)
        answer = http.post(
            "/api/runtime-work/copy",
            json={
                **address,
                "lastTurnId": middle,
                "newLocalTaskId": uuid.uuid4().hex,
                "targetDeviceId": desk.device.device_id,
                "targetWorkspacePath": str(target_project),
            },
        )
        return address, answer


def check_copy(hub: Any, desk: Any, source_project: Path, copied: dict[str, Any]) -> None:
    assert copied["method"] == "archive" and copied["deviceId"] == desk.device.device_id
    directory = Path(copied["workspacePath"])
    assert directory == desk.settings.paths.home / "transfers" / copied["transferId"] / "shop"
    assert (directory / "assets" / "image.bin").read_bytes() == BINARY
    assert (directory / "notes.md").read_bytes() == (source_project / "notes.md").read_bytes()
    with hub.client(timeout=SLOW) as http:
        address = {"deviceId": copied["deviceId"], "localTaskId": copied["localTaskId"]}
        assert [(m["role"], m["content"]) for m in transcript(http, address)] == [
            ("user", "Look at the shop"),
            ("assistant", "Looked at it."),
            ("user", "Second question"),
            ("assistant", "Second answer."),
        ]
    assert not (
        desk.settings.paths.home / "transfers" / copied["transferId"] / "package.tar.gz"
    ).exists()


def test_a_non_git_copy_goes_directly_from_executor_to_executor(
    agent_sandbox: AgentSandbox, tmp_path: Path
) -> None:
    """RW-314, RW-315, RW-316, RW-318: the archive goes from the laptop's transfer listener to
    the desk, fetched from the address the hub sees on the laptop's WebSocket after the
    probe; the desk's copy holds the project's files byte for byte and the history through
    the chosen turn; the laptop's package is gone once fetched."""
    from .kit import sse

    source_project = plain_project(agent_sandbox, "shop", "Look at the shop", files=True)
    with two_devices(agent_sandbox, tmp_path) as (hub, desk_box, laptop, desk):
        target_project = plain_project(desk_box, "desk-shop", "Desk looks", files=False)
        play(agent_sandbox, {"text": "Second answer."}, {"text": "Third answer."})
        with sse(hub.url, hub.token) as events:
            _, answer = copy_first_turn(hub, desk, laptop, target_project, events)
        assert answer.status_code == 200, answer.text
        copied = answer.json()
        assert copied["via"] == "direct" and copied["host"] == "127.0.0.2"
        check_copy(hub, desk, source_project, copied)
        assert not (
            laptop.settings.paths.home / "transfers" / copied["transferId"] / "package.tar.gz"
        ).exists()


def test_without_a_direct_path_the_copy_goes_through_object_storage(
    agent_sandbox: AgentSandbox, tmp_path: Path, s3_server: str
) -> None:
    """RW-314, RW-315, RW-317: the laptop's listener is on an address the desk is not given
    (127.0.0.4) and it reports a NAT address (127.0.0.9) where nothing answers; the hub falls
    back to the S3-compatible store: the laptop uploads, the desk downloads and checks the
    archive; the object is deleted afterwards."""
    from .kit import sse

    source_project = plain_project(agent_sandbox, "shop", "Look at the shop", files=True)
    hub_env = {
        "HANGAR_TRANSFER_STORAGE_URL": s3_server,
        "HANGAR_TRANSFER_STORAGE_BUCKET": "transfers",
        "HANGAR_TRANSFER_STORAGE_ACCESS_KEY": S3_KEYS["access"],
        "HANGAR_TRANSFER_STORAGE_SECRET_KEY": S3_KEYS["secret"],
    }
    with two_devices(
        agent_sandbox, tmp_path, hub_env, transfer_host="127.0.0.9", transfer_bind="127.0.0.4"
    ) as (hub, desk_box, laptop, desk):
        target_project = plain_project(desk_box, "desk-shop", "Desk looks", files=False)
        play(agent_sandbox, {"text": "Second answer."}, {"text": "Third answer."})
        with sse(hub.url, hub.token) as events:
            _, answer = copy_first_turn(hub, desk, laptop, target_project, events)
        assert answer.status_code == 200, answer.text
        copied = answer.json()
        assert copied["via"] == "object_storage" and copied["host"] is None
        check_copy(hub, desk, source_project, copied)
    listed = boto3.client(
        "s3", endpoint_url=s3_server, region_name="us-east-1",
        aws_access_key_id=S3_KEYS["access"], aws_secret_access_key=S3_KEYS["secret"],
    ).list_objects_v2(Bucket="transfers")  # fmt: skip
    assert listed.get("KeyCount", 0) == 0


def test_without_a_direct_path_or_object_storage_the_hub_answers_503(
    agent_sandbox: AgentSandbox, tmp_path: Path
) -> None:
    """RW-317: no direct path (the probe reaches nothing at either candidate) and no object
    storage configured: 503 ``transfer_unavailable`` naming both candidates tried, no task on
    the desk, and nothing of the transfer left on either device."""
    from .kit import sse

    plain_project(agent_sandbox, "shop", "Look at the shop", files=True)
    with two_devices(
        agent_sandbox, tmp_path, transfer_host="127.0.0.9", transfer_bind="127.0.0.4"
    ) as (hub, desk_box, laptop, desk):
        target_project = plain_project(desk_box, "desk-shop", "Desk looks", files=False)
        play(agent_sandbox, {"text": "Second answer."}, {"text": "Third answer."})
        with sse(hub.url, hub.token) as events:
            _, answer = copy_first_turn(hub, desk, laptop, target_project, events)
        assert answer.status_code == 503, answer.text
        error = answer.json()["error"]
        assert error["code"] == "transfer_unavailable"
        assert "127.0.0.2" in error["message"] and "127.0.0.9" in error["message"]
        assert "object storage" in error["message"]
        with hub.client() as http:
            view = http.get("/api/runtime-work").json()
        desk_tasks = [
            t for p in view["projects"] for t in p["tasks"]
            if t["deviceId"] == desk.device.device_id
        ]  # fmt: skip
        assert len(desk_tasks) == 1  # only its own session
        # Cleanly failed: neither device keeps a package or a half-made copy.
        assert not list((laptop.settings.paths.home / "transfers").glob("*/*"))
        assert not list((desk.settings.paths.home / "transfers").glob("*"))
