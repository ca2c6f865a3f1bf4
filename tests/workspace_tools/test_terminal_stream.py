"""Terminal output reaches the page whole and in order, even when events are lost on the way."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

from hangar.composition import LocalHangar
from hangar.hub.terminals import STREAM_LIMIT, Gap, TerminalRelay
from hangar.protocol.codec import to_json
from hangar.protocol.terminal import TERMINAL_EXIT, TERMINAL_OUTPUT, TerminalExit, TerminalOutput

from .conftest import Browser, Project, control, open_frame, opened, read_until


def test_lost_output_events_are_replayed_from_the_device(
    browser: Browser, project: Project, state: LocalHangar
) -> None:
    """A link that loses every other output event (as a full event queue of a remote device
    drops its oldest): the page still gets each line once, in order, from the replays."""
    deliver = state.executor.events
    seen = {"count": 0, "dropped": 0}

    def lossy(event: str, data: dict[str, Any]) -> None:
        if event == TERMINAL_OUTPUT:
            seen["count"] += 1
            if seen["count"] % 2 == 0:
                seen["dropped"] += 1
                return
        deliver(event, data)

    state.executor.attach_events(lossy)
    task = browser.tasks()[str(project.root)]
    with browser.connect() as ws:
        ws.send(open_frame(deviceId=task["deviceId"], localTaskId=task["localTaskId"],
                           workspacePath=task["workspacePath"]))  # fmt: skip
        opened(ws)
        script = "for i in $(seq 1 400); do echo line-$i; sleep 0.002; done; "
        script += "echo all-$((40+2))-done\r"
        ws.send(json.dumps({"type": "input", "data": script}))
        output = read_until(ws, b"all-42-done\r\n")
    assert seen["dropped"] > 5
    lines = re.findall(rb"line-(\d+)\r\n", output)
    assert [int(n) for n in lines] == list(range(1, 401))


def test_a_slow_page_gets_twenty_megabytes_whole(browser: Browser, project: Project) -> None:
    """Twenty megabytes printed while the page reads nothing for a while arrive complete: the
    device holds the shell's output (its writes wait) while the page is behind, so nothing
    has to be dropped."""
    task = browser.tasks()[str(project.root)]
    with browser.connect(max_size=None) as ws:
        ws.send(open_frame(deviceId=task["deviceId"], localTaskId=task["localTaskId"],
                           workspacePath=task["workspacePath"]))  # fmt: skip
        opened(ws)
        flood = "head -c 20000000 /dev/zero | tr '\\0' Q; echo; echo flood-$((40+2))-over\r"
        ws.send(json.dumps({"type": "input", "data": flood}))
        time.sleep(3)  # the page reads nothing meanwhile
        output = read_until(ws, b"flood-42-over\r\n", timeout=120)
    # The flood is one run of Qs, whole (the echoed command's Q may show twice where
    # readline redraws a line that wraps at the terminal's width).
    assert max(map(len, re.findall(b"Q+", output))) == 20_000_000


def test_a_socket_that_reads_nothing_holds_bounded_output_then_replays() -> None:
    """The relay keeps at most its limit for a socket that does not read; beyond it the
    socket is told once to replay (and still learns that the shell ended)."""

    async def scenario() -> list[object]:
        relay = TerminalRelay()
        stream = relay.subscribe("device-1", "term-1")
        chunk = b"z" * 65536
        for number in range(48):  # 3 MiB, more than the limit
            event = TerminalOutput(terminal_id="term-1", offset=number * len(chunk), data=chunk)
            relay.deliver("device-1", TERMINAL_OUTPUT, to_json(event))
        exit_event = TerminalExit(terminal_id="term-1", exit_code=0, offset=48 * len(chunk))
        relay.deliver("device-1", TERMINAL_EXIT, to_json(exit_event))
        relay.deliver("device-1", TERMINAL_OUTPUT, {"terminalId": "term-1", "offset": "x"})
        await asyncio.sleep(0)  # the deliveries are scheduled on this loop
        assert stream.pending <= STREAM_LIMIT
        items: list[object] = []
        while not stream.queue.empty():
            items.append(await stream.next())
        return items

    items = asyncio.run(scenario())
    outputs = [i for i in items if isinstance(i, TerminalOutput)]
    assert sum(len(i.data) for i in outputs) == STREAM_LIMIT
    assert [type(i) for i in items[len(outputs) :]] == [Gap, TerminalExit]


def test_the_shell_ending_is_reported(browser: Browser, project: Project) -> None:
    task = browser.tasks()[str(project.root)]
    with browser.connect() as ws:
        ws.send(open_frame(deviceId=task["deviceId"], localTaskId=task["localTaskId"],
                           workspacePath=task["workspacePath"]))  # fmt: skip
        opened(ws)
        ws.send(json.dumps({"type": "input", "data": "exit 7\r"}))
        assert control(ws) == {"type": "exit", "exitCode": 7}
