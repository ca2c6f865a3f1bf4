"""Which address the hub shows for a device (RW-045, RW-046, RW-047)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hub.sessions import ClaudeSession  # tests/hub, a sibling package

from .kit import Device, ThreadHub, devices, hub_thread, wait_until


def _session(home: Path, n: int, project: str) -> None:
    ClaudeSession(home, f"{n:08d}-eeee-4eee-8eee-{n:012d}", project).user(
        f"Work on {project}"
    ).assistant("Done.")


def _view(hub: ThreadHub) -> dict[str, Any]:
    with hub.client() as http:
        body: dict[str, Any] = http.get("/api/runtime-work").json()
    return body


def _projects(hub: ThreadHub, count: int) -> dict[str, Any] | None:
    view = _view(hub)
    return view if len(view["projects"]) == count else None


def _sidebar(hub: ThreadHub) -> str:
    with hub.client() as http:
        http.post("/login", data={"token": hub.token, "next": "/runtime-tasks"})
        return http.get("/ui/sidebar").text


def test_several_devices_show_the_remote_address_and_never_the_local_one(tmp_path: Path) -> None:
    """RW-045, RW-046, RW-047: with several devices the local device's projects carry no
    address; a remote device shows the transfer host it reports, else its client IP, else
    (its connection came from the hub's own loopback address) its name — in the projects,
    the device list and the device picker; its device id never when a name is known."""
    _session(tmp_path / "hub" / "home", 1, "/srv/local")
    with hub_thread(tmp_path / "hub", serve_executor=True) as hub:
        plain = Device("alpha", tmp_path / "alpha", "127.0.0.2", [hub.url], hub.add_device("alpha"))
        reported = Device(
            "beta",
            tmp_path / "beta",
            "127.0.0.3",
            [hub.url],
            hub.add_device("beta"),
            extra_args=["--transfer-host", "127.0.0.9"],
        )
        beside = Device(
            "gamma", tmp_path / "gamma", "127.0.0.1", [hub.url], hub.add_device("gamma")
        )
        for n, device in enumerate((plain, reported, beside), start=2):
            _session(device.home, n, f"/srv/{device.name}")
        with devices(plain, reported, beside):
            wait_until(lambda: len(hub.ctx.device_infos()) == 4, "four devices online")
            view = wait_until(lambda: _projects(hub, 4), "four projects")
            labels = {p["name"]: p["deviceLabel"] for p in view["projects"]}
            assert labels == {
                "local": None,
                "alpha": "127.0.0.2",
                "beta": "127.0.0.9",
                "gamma": "gamma",
            }
            shown = {d["name"]: (d["local"], d["display"], d["state"]) for d in view["devices"]}
            local_name = hub.local.executor.device.name
            assert shown == {
                local_name: (True, f"{local_name} (this device)", "online"),
                "alpha": (False, "127.0.0.2", "online"),
                "beta": (False, "127.0.0.9", "online"),
                "gamma": (False, "gamma", "online"),
            }
            html = _sidebar(hub)
            options = re.findall(r'<option value="[^"]+">([^<]+)</option>', html)
            assert options == [f"{local_name} (this device)", "127.0.0.2", "127.0.0.9", "gamma"]
            labelled = re.findall(r'class="device-label">.*?</span>([^<]+)</span>', html)
            assert sorted(labelled) == ["127.0.0.2", "127.0.0.9", "gamma"]


def test_one_device_shows_no_address(tmp_path: Path) -> None:
    """RW-045: a hub with a single device shows no address after its projects, even when
    that device is remote."""
    with hub_thread(tmp_path / "hub") as hub:
        only = Device("solo", tmp_path / "solo", "127.0.0.2", [hub.url], hub.add_device("solo"))
        _session(only.home, 7, "/srv/solo")
        with devices(only):
            view = wait_until(lambda: _projects(hub, 1), "a project")
            assert [p["deviceLabel"] for p in view["projects"]] == [None]
            assert "device-label" not in _sidebar(hub)
            assert 'id="device-picker"' not in _sidebar(hub)
