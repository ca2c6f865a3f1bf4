"""Three remote executors, each in its own home, connecting to one hub from 127.0.0.2-4."""

from __future__ import annotations

import signal
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from hub.sessions import BASE_TIME, ClaudeSession  # tests/hub, a sibling package

from .kit import Device, devices, hub_process, wait_until

ADDRESSES = ["127.0.0.2", "127.0.0.3", "127.0.0.4"]
NAMES = ["north", "east", "south"]
FANOUT_TIMEOUT = 3.0


def _sessions(device: Device, n: int) -> None:
    """A project session per device; every one mentions "harbor", each its own word too."""
    session = ClaudeSession(
        device.home,
        f"{n}{n}{n}{n}{n}{n}{n}{n}-aaaa-4aaa-8aaa-00000000000{n}",
        f"/srv/{device.name}/app",
        start=BASE_TIME + timedelta(hours=n),
    )
    session.user(f"Check the harbor lights on {device.name}").assistant(
        f"The {device.name} harbor lights are fine."
    )


def _tasks(view: dict[str, Any]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for project in view["projects"]:
        found.setdefault(project["deviceId"], []).extend(t["title"] for t in project["tasks"])
    return found


def test_three_devices_merge_and_one_killed_mid_search_is_offline(tmp_path: Path) -> None:
    """RW-026, RW-043, RW-049, RW-054, RW-055: list and search fan out to every online
    device and merge (newest first, capped by limit); a device killed while a search waits
    on it answers within the per-device timeout as missing, contributes nothing, and is back
    after it restarts. RW-046: each remote device shows the client IP it connected from."""
    env = {"HANGAR_DEVICE_FANOUT_TIMEOUT_SECONDS": str(FANOUT_TIMEOUT)}
    with hub_process(tmp_path / "hub", "--no-executor", **env) as hub:
        items = []
        for n, (name, address) in enumerate(zip(NAMES, ADDRESSES, strict=True), start=1):
            device = Device(name, tmp_path / name, address, [hub.url], token=hub.add_device(name))
            _sessions(device, n)
            items.append(device)
        with devices(*items):
            hub.wait_online(*NAMES)
            listed = hub.devices()
            assert {n: listed[n]["clientIp"] for n in NAMES} == dict(
                zip(NAMES, ADDRESSES, strict=True)
            )
            view = hub.get("/api/runtime-work")
            ids = {n: listed[n]["deviceId"] for n in NAMES}
            assert _tasks(view) == {ids[n]: [f"Check the harbor lights on {n}"] for n in NAMES}
            labels = {p["deviceId"]: p["deviceLabel"] for p in view["projects"]}
            assert labels == {ids[n]: a for n, a in zip(NAMES, ADDRESSES, strict=True)}
            assert view["errors"] == []

            found = hub.post("/api/runtime-work/search", {"query": "harbor"}).json()
            assert [r["deviceName"] for r in found["results"]] == ["south", "east", "north"]
            assert [r["updatedAt"] for r in found["results"]] == sorted(
                (r["updatedAt"] for r in found["results"]), reverse=True
            )
            capped = hub.post("/api/runtime-work/search", {"query": "harbor", "limit": 2}).json()
            assert [r["deviceName"] for r in capped["results"]] == ["south", "east"]

            east = items[1]
            east.signal(signal.SIGSTOP)  # connected, but answers nothing from now on
            answer: dict[str, Any] = {}

            def search() -> None:
                started = time.monotonic()
                response = hub.post("/api/runtime-work/search", {"query": "harbor"}, timeout=60)
                answer.update(response.json(), elapsed=time.monotonic() - started)

            waiting = threading.Thread(target=search)
            waiting.start()
            waiting.join(1.0)
            assert waiting.is_alive(), "the search should be waiting for the stopped device"
            east.kill()
            waiting.join(30)
            assert answer["elapsed"] < FANOUT_TIMEOUT + 2
            assert [r["deviceName"] for r in answer["results"]] == ["south", "north"]
            assert [e["deviceId"] for e in answer["errors"]] == [ids["east"]]
            assert answer["errors"][0]["code"] in {"device_unavailable", "device_timeout"}

            hub.wait_online("east", state="offline")
            view = hub.get("/api/runtime-work")
            assert set(_tasks(view)) == {ids["north"], ids["south"]}
            shown = {d["deviceId"]: d["state"] for d in view["devices"]}
            assert shown[ids["east"]] == "offline"

            east.token = None  # the token stored on the device is used again
            east.start()
            hub.wait_online("east")
            view = hub.get("/api/runtime-work")
            assert set(_tasks(view)) == set(ids.values())
            assert wait_until(lambda: east.hangar_home.joinpath("device-token").exists(), "token")
            assert east.hangar_home.joinpath("device-token").stat().st_mode & 0o777 == 0o600
