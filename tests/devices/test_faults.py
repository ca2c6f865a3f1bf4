"""Bad devices and bad frames: refused or closed with a reason; other devices unaffected."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from hangar.protocol import frames as f

from .kit import Device, ThreadHub, devices, hub_thread, wait_until


def _online(hub: ThreadHub) -> set[str]:
    return {i.name for i in hub.ctx.device_infos()}


def _lists(hub: ThreadHub, name: str) -> bool:
    with hub.client() as http:
        view = http.get("/api/runtime-work").json()
    return name in {d["name"] for d in view["devices"] if d["online"]} and view["errors"] == []


def _exit_message(device: Device) -> str:
    assert device.process is not None
    assert device.process.wait(timeout=30) == 1
    device._finish()
    return "".join(device.lines)


def test_a_token_reused_by_another_machine_is_refused(tmp_path: Path) -> None:
    """The second machine presenting a device token is refused for good (the executor exits
    with the hub's reason); the first stays connected and served."""
    with hub_thread(tmp_path / "hub") as hub:
        token = hub.add_device("laptop")
        first = Device("laptop", tmp_path / "laptop", "127.0.0.2", [hub.url], token=token)
        other = Device("intruder", tmp_path / "other", "127.0.0.3", [hub.url], token=token)
        with devices(first):
            wait_until(lambda: "laptop" in _online(hub), "laptop online")
            first.stop()
            wait_until(lambda: not _online(hub), "laptop offline")
            other.start(wait=False)
            assert "belongs to another machine" in _exit_message(other)
            first.token = None
            first.start()
            assert _lists(hub, "laptop")


def test_a_second_connection_of_one_device_waits_for_the_first(tmp_path: Path) -> None:
    """A copy of a device's home (same device id) cannot connect while the first connection
    stands (4409, retried with backoff), and takes over once it is gone."""
    with hub_thread(tmp_path / "hub") as hub:
        token = hub.add_device("laptop")
        first = Device("laptop", tmp_path / "laptop", "127.0.0.2", [hub.url], token=token)
        with devices(first):
            wait_until(lambda: "laptop" in _online(hub), "laptop online")
            shutil.copytree(first.root, tmp_path / "copy")
            copy = Device("laptop", tmp_path / "copy", "127.0.0.3", [hub.url])
            copy.start(wait=False)
            try:
                copy.wait_for("closed 4409")
                assert _lists(hub, "laptop")
                first.kill()
                copy.wait_for("connected")
                with hub.client() as http:
                    listed = http.get("/api/devices").json()["devices"]
                assert [(d["name"], d["clientIp"]) for d in listed] == [("laptop", "127.0.0.3")]
            finally:
                copy.stop()


def test_a_revoked_device_is_disconnected_and_refused(tmp_path: Path) -> None:
    with hub_thread(tmp_path / "hub") as hub:
        token = hub.add_device("laptop")
        first = Device("laptop", tmp_path / "laptop", "127.0.0.2", [hub.url], token=token)
        with devices(first):
            wait_until(lambda: "laptop" in _online(hub), "laptop online")
            with hub.client() as http:
                assert http.post("/api/devices/laptop/revoke").status_code == 200
            assert "revoked" in _exit_message(first)
            assert not _online(hub)
            unknown = Device("stranger", tmp_path / "x", "127.0.0.4", [hub.url], token="hgd_nope")
            unknown.start(wait=False)
            assert "unknown device token" in _exit_message(unknown)


@contextmanager
def _raw_socket(hub: ThreadHub, token: str, device_id: str) -> Iterator[ClientConnection]:
    """A hand-driven device connection, past its hello."""
    url = hub.url.replace("http://", "ws://") + "/executor/connect"
    headers = {"Authorization": f"Bearer {token}"}
    with connect(url, additional_headers=headers, proxy=None, max_size=None) as ws:
        ws.send(f.encode(f.Hello(device_id=device_id, name="raw")))
        header, _ = f.decode(ws.recv(timeout=10))
        assert isinstance(header, f.Welcome)
        yield ws


@pytest.mark.parametrize(
    ("frame", "code", "reason"),
    [
        (b"no header line here", f.CLOSE_MALFORMED, "malformed frame: no header line"),
        (b'{"t":"result","id":"x"}\n', f.CLOSE_MALFORMED, "malformed frame: Expected `int`"),
        ("a text frame", f.CLOSE_MALFORMED, "text frames are not part of the protocol"),
        (b"x" * (2 << 20), f.CLOSE_TOO_BIG, ""),
    ],
    ids=["no-header", "bad-header", "text", "huge"],
)
def test_malformed_and_huge_frames_close_that_connection_only(
    tmp_path: Path, frame: bytes | str, code: int, reason: str
) -> None:
    """The misbehaving connection is closed with a code and a reason; a well-behaved device
    on the same hub keeps answering."""
    with hub_thread(tmp_path / "hub") as hub:
        good = Device(
            "good", tmp_path / "good", "127.0.0.2", [hub.url], token=hub.add_device("good")
        )
        with devices(good):
            wait_until(lambda: "good" in _online(hub), "good online")
            with _raw_socket(hub, hub.add_device("bad"), "bad-device-id") as ws:
                wait_until(lambda: "bad" in _online(hub), "bad online")
                ws.send(frame)
                with pytest.raises(ConnectionClosed) as closed:
                    while True:
                        ws.recv(timeout=10)
            received = closed.value.rcvd
            assert received is not None and received.code == code
            assert received.reason.startswith(reason)
            wait_until(lambda: _online(hub) == {"good"}, "bad offline")
            assert _lists(hub, "good")
