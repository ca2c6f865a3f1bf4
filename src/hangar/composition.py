"""The composition root: one local hangar — this device's executor and the hub — in one process.

This is the only module that knows both halves. It opens the executor
(:class:`~hangar.executor.service.Executor`, from ``$HANGAR_HOME``) and the hub database, links
them through an :class:`~hangar.hub.executor_link.InProcessExecutorLink` (the seam a remote
executor's WebSocket link plugs into), builds the hub app, and starts the background workers of
both sides: the session watcher and indexing worker, the delete queue left by an earlier run,
the local-run outbox and sweeper. It also gives the executor its two ways back to the hub: the
SSE bus its turn events stream to (:func:`~hangar.hub.events.turn_relay`) and the hub's uploads,
from which it fetches a message's attachments.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI
from sqlalchemy.engine import Engine

from hangar.agents.base import AgentStore
from hangar.agents.launch import AgentLauncher
from hangar.executor.service import Executor
from hangar.executor.watcher import start_live_workers
from hangar.hub.app import create_app
from hangar.hub.context import HubContext
from hangar.hub.events import EventBus, turn_relay
from hangar.hub.executor_link import DeviceLinks, InProcessExecutorLink
from hangar.hub.server import HubServer, Worker, is_loopback
from hangar.hub.store.attachments import AttachmentStore
from hangar.hub.store.database import open_hub_database
from hangar.hub.terminals import TerminalAccess, device_event_sink
from hangar.hub.workers.outbox import start_local_run_workers
from hangar.paths import Env
from hangar.token_file import TokenSource


@dataclass
class LocalHangar:
    """This device's executor and a hub over ``hub.db``, wired together."""

    executor: Executor
    hub_engine: Engine
    link: InProcessExecutorLink = field(init=False)
    events: EventBus = field(init=False)
    attachments: AttachmentStore = field(init=False)

    def __post_init__(self) -> None:
        self.link = InProcessExecutorLink(
            handler=self.executor.call, supported=self.executor.methods
        )
        self.events = EventBus()
        self.attachments = AttachmentStore(
            self.hub_engine, self.executor.settings.paths.home / "attachments"
        )
        self.executor.attach_events(turn_relay(self.events), self.attachments.read)

    @classmethod
    def open(
        cls,
        environ: Env | None = None,
        *,
        stores: Mapping[str, AgentStore] | None = None,
        launcher: AgentLauncher | None = None,
    ) -> LocalHangar:
        """Open (creating and migrating) both databases of this ``$HANGAR_HOME``."""
        executor = Executor.open(environ, stores=stores, launcher=launcher)
        try:
            engine = open_hub_database(executor.settings.paths.hub_db)
        except BaseException:
            executor.close()
            raise
        return cls(executor, engine)

    def devices(self) -> DeviceLinks:
        """The single-user setup: this device's executor, in process."""
        device = self.executor.device
        return DeviceLinks(
            local_device_id=device.device_id,
            links={device.device_id: self.link},
            names={device.device_id: device.name},
        )

    def create_app(
        self, token: str, *, extra: dict[str, Any] | None = None, bind_host: str = "127.0.0.1"
    ) -> FastAPI:
        """The hub app over this hangar; ``bind_host`` is where it will listen (terminals are
        off on a non-loopback address unless the ``remote_terminal`` setting allows them)."""
        access = TerminalAccess.for_bind(
            is_loopback(bind_host), bool(self.executor.settings.remote_terminal)
        )
        app = create_app(
            self.hub_engine,
            self.devices(),
            token=token,
            owner_name=self.executor.device.name or "owner",
            extra=extra,
            terminal_access=access,
            events=self.events,
            attachments=self.attachments,
        )
        ctx = app.state.hub
        assert isinstance(ctx, HubContext)
        # Terminal output reaches this hub's sockets; every other event goes where it went
        # before (the SSE bus, through the turn relay attached at open).
        self.executor.attach_events(
            device_event_sink(self.executor.device.device_id, ctx.terminals, self.executor.events)
        )
        return app

    def start_workers(self, app: FastAPI) -> list[Worker]:
        """Everything that runs beside a serving hub; each has ``stop()``."""
        ctx = app.state.hub
        assert isinstance(ctx, HubContext)
        workers: list[Worker] = list(start_live_workers(self.executor, ctx.events.publish))
        workers += start_local_run_workers(ctx)
        self.executor.resume_deletes()
        return workers

    def server(self, app: FastAPI, host: str, port: int, token: TokenSource) -> HubServer:
        """A :class:`HubServer` for ``app`` whose workers are this hangar's."""
        return HubServer(
            app=app,
            host=host,
            port=port,
            token=token,
            start_workers=lambda server: self.start_workers(server.app),
        )

    def close(self) -> None:
        """Stop the executor's workers, then close both databases."""
        self.link.close()
        self.executor.close()
        self.hub_engine.dispose()

    def __enter__(self) -> LocalHangar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
