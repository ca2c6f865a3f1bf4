"""``hangar executor``: this device's executor serving a hub until interrupted.

The device-side counterpart of the composition root: it opens nothing itself but wires what it
receives — the executor, its live workers (session watcher, indexer, final-reply watch), and
an :class:`~.client.ExecutorClient` whose events they and the executor's turns feed — and
runs the client on an asyncio loop until SIGINT/SIGTERM.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hangar import __version__
from hangar.executor.remote.attachments import hub_fetcher
from hangar.executor.remote.client import ExecutorClient
from hangar.executor.remote.session import executor_handler
from hangar.executor.service import Executor
from hangar.executor.watcher import start_live_workers
from hangar.protocol import frames as f


@dataclass
class RemoteOptions:
    hubs: Sequence[str]
    token: str
    source_address: str | None = None
    transfer_host: str | None = None
    workers: int = 8
    on_change: Callable[[str], None] | None = None


def build_client(executor: Executor, options: RemoteOptions) -> ExecutorClient:
    """The client that serves ``executor``'s RPCs to the hub. The executor's turn events go
    to the hub over the same connection, and a send's uploads are fetched from that hub."""
    hello = f.Hello(
        device_id=executor.device.device_id,
        name=executor.device.name,
        version=__version__,
        transfer_host=options.transfer_host or None,
        methods=sorted(executor.methods),
    )
    client = ExecutorClient(
        hubs=options.hubs,
        token=options.token,
        hello=hello,
        handler=executor_handler(executor),
        workers=options.workers,
        source_address=options.source_address,
        on_change=options.on_change,
    )
    fetch = hub_fetcher(lambda: client.connected_url, options.token, options.source_address)
    executor.attach_events(client.publish, fetch, client.backlog)
    return client


def serve_remote(executor: Executor, options: RemoteOptions) -> None:
    """Serve ``executor`` to its hub until SIGINT/SIGTERM (raises ``HubRefused``)."""
    client = build_client(executor, options)
    workers = start_live_workers(executor, client.publish)
    executor.resume_deletes()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, client.stop)
        await client.run()

    try:
        asyncio.run(main())
    finally:
        for worker in workers:
            worker.stop()
