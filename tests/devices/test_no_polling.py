"""What a connected executor sends when nobody asks it anything (RW-042)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from websockets.asyncio.server import ServerConnection, serve

from hangar.protocol import frames as f
from hub.sessions import ClaudeSession  # tests/hub, a sibling package

from .kit import Device, wait_until


@contextmanager
def listening_end(frames: list[tuple[f.Header, bytes]]) -> Iterator[str]:
    """The hub's end of the executor protocol, recording every frame: it welcomes the
    device and then never calls it. Yields its URL (on 127.0.0.1)."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    stop = asyncio.Event()
    url: list[str] = []

    async def connection(ws: ServerConnection) -> None:
        hello, _ = f.decode(await ws.recv())
        assert isinstance(hello, f.Hello)
        await ws.send(f.encode(f.Welcome(device_id=hello.device_id, name=hello.name)))
        async for message in ws:
            frames.append(f.decode(message))

    async def main() -> None:
        async with serve(connection, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            url.append(f"http://127.0.0.1:{port}")
            ready.set()
            await stop.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    assert ready.wait(30)
    try:
        yield url[0]
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(30)
        loop.close()


def test_the_executor_never_polls_or_pushes_its_task_list(tmp_path: Path) -> None:
    """RW-042: connected and never asked, an executor whose sessions change sends only its
    status and change hints (which name what changed, never the tasks) and at most the final
    reply of the task that changed: no call to the hub, no list of its own accord."""
    frames: list[tuple[f.Header, bytes]] = []
    with listening_end(frames) as url:
        device = Device("quiet", tmp_path / "quiet", "127.0.0.2", [url], token="t" * 40)
        session = ClaudeSession(device.home, "cccccccc-3333-4333-8333-000000000003", "/srv/q")
        session.user("Check the quiet harbor").assistant("All quiet.")
        device.start()
        try:
            session.user("And now?").assistant("Still quiet.")
            wait_until(
                lambda: any(isinstance(x, f.Event) for x, _ in frames), "a change hint", deadline=30
            )
            # Long enough for a poll or a periodic push to show up, had there been one.
            threading.Event().wait(3.0)
        finally:
            device.stop()
    kinds = {type(x).__name__ for x, _ in frames}
    assert kinds <= {"Status", "Event"}, kinds
    hints = [(x.name, json.loads(body)) for x, body in frames if isinstance(x, f.Event)]
    # ``runtime.tasks.updated`` may come too: the one task whose reply became final (RW-329).
    names = {"runtime.changed", "index.progress", "runtime.tasks.updated"}
    assert {name for name, _ in hints} <= names, hints
    assert not [data for _, data in hints if "tasks" in data]
    finals = {d["localTaskId"] for name, d in hints if name == "runtime.tasks.updated"}
    assert len(finals) <= 1, finals
    assert not [d for name, d in hints if name != "runtime.tasks.updated" and "title" in d]
