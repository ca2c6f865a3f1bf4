"""A terminal on a remote device, through the hub's page socket: a real ``hangar executor``
process connecting from 127.0.0.2, a real PTY shell there, and a browser session on the hub.
The page sees the shell's output as it does for the hub's own device; the output crosses the
device's WebSocket as events and reaches only the page sockets watching that terminal."""

from __future__ import annotations

import json
import os
import re
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin, Subprotocol

from hangar.executor.core import TERMINAL_BACKLOG
from hangar.executor.remote.run import RemoteOptions, build_client
from hangar.executor.remote.session import EVENT_BYTES
from hangar.executor.service import Executor
from hangar.executor.terminals.pty_shell import READ_CHUNK
from hangar.hub.auth import SESSION_COOKIE
from hangar.protocol import create as cr
from hangar.protocol import methods as m
from hangar.protocol import tasks as t
from hangar.protocol import terminal as term
from workspace_tools.conftest import open_frame, opened, read_until

from .kit import (
    Device,
    ThreadHub,
    client_thread,
    device_env,
    devices,
    hub_process,
    hub_thread,
    sse,
    wait_until,
)

FLOOD = 20_000_000


@dataclass
class Page:
    """A browser logged in to the hub: its cookie and this session's CSRF token."""

    hub: ThreadHub
    cookie: str
    csrf: str

    def connect(self) -> ClientConnection:
        return connect(
            self.hub.url.replace("http://", "ws://") + "/ui/terminal",
            origin=Origin(self.hub.url),
            subprotocols=[Subprotocol("hangar.terminal.v1"), Subprotocol("csrf." + self.csrf)],
            additional_headers={"Cookie": self.cookie},
            open_timeout=10,
            max_size=None,
            compression=None,  # a flood of one byte must take the room it takes on a wire
        )


def log_in(hub: ThreadHub) -> Page:
    with httpx.Client(base_url=hub.url, timeout=20, trust_env=False) as client:
        done = client.post("/login", data={"token": hub.token}, follow_redirects=False)
        assert done.status_code == 303, done.text
        found = re.search(
            r'<meta name="csrf-token" content="([^"]+)">', client.get("/runtime-tasks").text
        )
        assert found is not None
        return Page(hub, f"{SESSION_COOKIE}={client.cookies[SESSION_COOKIE]}", found.group(1))


@contextmanager
def remote_device(tmp_path: Path, hub: ThreadHub) -> Iterator[tuple[str, Path]]:
    """A device in its own process, online, with a new blank project ``notes`` made through
    the hub; yields its id and the project's directory."""
    laptop = Device("laptop", tmp_path / "laptop", "127.0.0.2", [hub.url], hub.add_device("laptop"))
    with devices(laptop):
        infos = wait_until(lambda: hub.ctx.device_infos(), "the device online")
        device_id = infos[0].device_id
        with hub.client() as http:
            made = http.post(
                "/api/runtime-work/projects/create", json={"deviceId": device_id, "name": "notes"}
            )
        assert made.status_code == 200, made.text
        yield device_id, Path(made.json()["workspacePath"])


def terminals(hub: ThreadHub, device_id: str) -> list[Any]:
    answer = hub.ctx.devices.link(device_id).call(m.TERMINAL_LIST.name, t.NoArguments())
    return list(answer.terminals)


def test_a_remote_device_terminal_streams_to_the_page_only(tmp_path: Path) -> None:
    """RW-253: the terminal opened for a directory of another device is a shell on that
    device, in that directory; what it prints reaches the page through the device's
    WebSocket, and never the hub's SSE stream."""
    with hub_thread(tmp_path / "hub") as hub, remote_device(tmp_path, hub) as (device, notes):
        page = log_in(hub)
        with sse(hub.url, hub.token) as events, page.connect() as ws:
            ws.send(open_frame(deviceId=device, workspacePath=str(notes)))
            info = opened(ws)
            assert info["cwd"] == str(notes)
            ws.send(json.dumps({"type": "input", "data": "pwd; echo far-$((6*7))\r"}))
            output = read_until(ws, b"far-42")
            assert str(notes).encode() in output
            assert [i.cwd for i in terminals(hub, device)] == [str(notes)]
        assert not [e for e in events if e["event"].startswith("runtime.terminal")]


def test_a_remote_terminal_holds_its_output_while_the_page_reads_nothing(
    tmp_path: Path,
) -> None:
    """Twenty megabytes printed on the remote device while the page reads nothing: the
    device stops reading the shell's PTY (the hub asks it to hold, over the device's
    connection), so its output stalls far short of the end and nothing piles up; once the
    page reads, every byte arrives once, in order."""
    with hub_thread(tmp_path / "hub") as hub, remote_device(tmp_path, hub) as (device, notes):
        with log_in(hub).connect() as ws:
            ws.send(open_frame(deviceId=device, workspacePath=str(notes)))
            opened(ws)
            flood = f"head -c {FLOOD} /dev/zero | tr '\\0' Q; echo; echo flood-$((40+2))-over\r"
            ws.send(json.dumps({"type": "input", "data": flood}))
            stalled = _stalled_offset(hub, device)
            assert 0 < stalled < FLOOD // 2
            output = read_until(ws, b"flood-42-over\r\n", timeout=120)
        # The flood is one run of Qs, whole (the echoed command's Q may show twice where
        # readline redraws a line that wraps at the terminal's width).
        assert max(map(len, re.findall(b"Q+", output))) == FLOOD


def _stalled_offset(hub: ThreadHub, device: str) -> int:
    return _stalled(lambda: terminals(hub, device))


def _stalled(listed: Any) -> int:
    """The terminal's output offset once it stopped moving for a second (it is held)."""
    last, since = -1, time.monotonic()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        (info,) = listed()
        if info.offset != last:
            last, since = info.offset, time.monotonic()
        elif last > 0 and time.monotonic() - since > 1.0:
            return int(last)
        time.sleep(0.05)
    raise AssertionError(f"the output never stopped: at {last}")


def test_a_hub_bound_remotely_opens_no_terminal_on_a_device(tmp_path: Path) -> None:
    """A hub built for a non-loopback bind refuses the terminal socket (HTTP 403) before it
    asks any device: the remote device has no terminal afterwards."""
    with (
        hub_thread(tmp_path / "hub", bind_host="0.0.0.0") as hub,
        remote_device(tmp_path, hub) as (device, _notes),
    ):
        with pytest.raises(InvalidStatus) as refused:
            log_in(hub).connect()
        assert refused.value.response.status_code == 403
        assert terminals(hub, device) == []


def test_the_remote_terminal_setting_lets_a_remotely_bound_hub_open_one(tmp_path: Path) -> None:
    """With ``remote_terminal`` on, the same hub opens the device's terminal."""
    with (
        hub_thread(tmp_path / "hub", bind_host="0.0.0.0", HANGAR_REMOTE_TERMINAL="1") as hub,
        remote_device(tmp_path, hub) as (device, notes),
        log_in(hub).connect() as ws,
    ):
        ws.send(open_frame(deviceId=device, workspacePath=str(notes)))
        assert opened(ws)["cwd"] == str(notes)
        ws.send(json.dumps({"type": "input", "data": "echo allowed-$((6*7))\r"}))
        read_until(ws, b"allowed-42")


def test_a_device_whose_hub_stops_reading_holds_terminal_output_in_bounded_memory(
    tmp_path: Path,
) -> None:
    """The hub process is stopped (its socket reads nothing) while a remote terminal floods:
    the device's queue for the hub stops growing near its bound and the shell's output is
    held, not dropped; when the hub runs again, the rest of the output follows."""
    with hub_process(tmp_path / "hub") as hub:
        executor = Executor.open(device_env(tmp_path / "laptop", HANGAR_DEVICE_NAME="laptop"))
        try:
            options = RemoteOptions(
                hubs=[hub.url], token=hub.add_device("laptop"), source_address="127.0.0.2"
            )
            client = build_client(executor, options)
            with client_thread(client):
                hub.wait_online("laptop")
                notes = executor.call(m.PROJECTS_CREATE.name, cr.CreateProject(name="notes"))
                opened = executor.call(
                    m.TERMINAL_OPEN.name, term.OpenTerminal(workspace_path=notes.workspace_path)
                )

                def listed() -> list[Any]:
                    return list(executor.call(m.TERMINAL_LIST.name, t.NoArguments()).terminals)

                os.kill(hub.running.process.pid, signal.SIGSTOP)
                try:
                    # Random bytes: the connection's compression cannot make them small.
                    flood = f"head -c {FLOOD} /dev/urandom | base64; echo flood-over\r"
                    executor.call(
                        m.TERMINAL_INPUT.name,
                        term.TerminalInput(terminal_id=opened.terminal_id, data=flood),
                    )
                    stalled = _stalled(listed)
                    assert stalled < FLOOD // 2
                    assert TERMINAL_BACKLOG <= client.backlog() <= EVENT_BYTES
                finally:
                    os.kill(hub.running.process.pid, signal.SIGCONT)
                wait_until(lambda: listed()[0].offset > FLOOD * 4 // 3, "the rest of the output")
        finally:
            executor.close()


def test_a_watcher_window_bounds_what_a_remote_terminal_sends_ahead(tmp_path: Path) -> None:
    """Over the device's connection, a watcher that reported what it took gets at most one
    window of output beyond it, whatever the delay on the way; each report moves the window,
    and a release lets the shell run on."""
    with hub_thread(tmp_path / "hub") as hub, remote_device(tmp_path, hub) as (device, notes):
        link = hub.ctx.devices.link(device)
        opened = link.call(m.TERMINAL_OPEN.name, term.OpenTerminal(workspace_path=str(notes)))
        terminal = opened.terminal_id

        def report(consumed: int | None) -> None:
            flow = term.TerminalFlow(
                terminal_id=terminal, holder="page", paused=False, consumed=consumed
            )
            link.call(m.TERMINAL_FLOW.name, flow)

        report(opened.offset)
        flood = f"head -c {FLOOD} /dev/zero | tr '\\0' Q; echo; echo flood-over\r"
        link.call(m.TERMINAL_INPUT.name, term.TerminalInput(terminal_id=terminal, data=flood))
        first = _stalled_offset(hub, device)
        assert opened.offset + term.FLOW_WINDOW <= first
        assert first < opened.offset + term.FLOW_WINDOW + READ_CHUNK
        report(first)
        second = _stalled_offset(hub, device)
        assert first + term.FLOW_WINDOW <= second < first + term.FLOW_WINDOW + READ_CHUNK
        report(None)
        wait_until(lambda: terminals(hub, device)[0].offset > FLOOD, "the rest of the output")
