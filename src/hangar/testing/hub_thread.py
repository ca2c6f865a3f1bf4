"""A local hangar served on a loopback port from a thread of the test (or benchmark) process.

``hangar serve`` starts agents through the device's ``PATH``; a test that must reach the
pinned CLIs inside its sandbox builds a :class:`~hangar.composition.LocalHangar` with the
sandbox's launcher and serves it here: the same app, the same workers, a real socket, a real
uvicorn server, stopped (and its workers with it) when the context ends.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

from hangar.composition import LocalHangar
from hangar.hub.server import bind_socket, url_for

START_DEADLINE = 30.0


@contextmanager
def serve_local(local: LocalHangar, token: str, *, workers: bool = True) -> Iterator[str]:
    """Serve ``local`` on ``127.0.0.1`` (a free port); yields the base URL."""
    app = local.create_app(token)
    sock = bind_socket("127.0.0.1", 0)
    url = url_for("127.0.0.1", int(sock.getsockname()[1]))
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    running = local.start_workers(app) if workers else []
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="hangar-hub", daemon=True
    )
    thread.start()
    try:
        deadline = time.monotonic() + START_DEADLINE
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the hub did not start")
            time.sleep(0.02)
        yield url
    finally:
        server.should_exit = True
        thread.join(15)
        for worker in running:
            worker.stop()
        sock.close()
