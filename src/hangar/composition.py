"""The composition root: one hangar hub process — the hub, and this device's executor.

This is the only module that knows both halves. It opens the executor
(:class:`~hangar.executor.service.Executor`, from ``$HANGAR_HOME``) and the hub database
(SQLite ``hub.db``, or the PostgreSQL of ``HANGAR_DATABASE_URL`` that several replicas share),
links the executor through an :class:`~hangar.hub.executor_link.InProcessExecutorLink`, adds
the directory of remote devices (:class:`~hangar.hub.devices.service.DeviceService`: executors
that connect over a WebSocket, calls routed between replicas, events shared through
PostgreSQL), builds the hub app, and starts the background workers of both sides: the session
watcher, indexing worker and final-reply watch of this device, the delete queue left by an
earlier run, the local-run outbox and sweeper, the follower of adopted sessions (which this device's
session watcher events drive, :func:`fan_out`), the notification deliveries. It also gives the
executor its two ways back to the hub: the SSE bus its turn events stream to
(:func:`~hangar.hub.events.turn_relay`) and the hub's uploads, from which it fetches a
message's attachments (a remote executor gets both over its WebSocket and the hub's HTTP API).

A team hub's replicas usually run no executor of their own (``serve_executor = false``):
then this machine's sessions are not part of the hub, and only remote devices are.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI
from sqlalchemy.engine import Engine

from hangar.agents.base import AgentStore
from hangar.agents.launch import AgentLauncher
from hangar.executor.service import Executor
from hangar.executor.watcher import start_live_workers
from hangar.hub.app import RemoteOptions, create_app
from hangar.hub.context import HubContext
from hangar.hub.devices.service import DeviceService
from hangar.hub.devices.ws_link import Timeouts
from hangar.hub.events import EventBus, turn_relay
from hangar.hub.executor_link import DeviceLinks, InProcessExecutorLink
from hangar.hub.http_policy import HostPolicy
from hangar.hub.notify.service import Notifications
from hangar.hub.notify.worker import DeliveryWorker
from hangar.hub.object_storage import ObjectStorage
from hangar.hub.server import HubServer, Worker, is_loopback
from hangar.hub.store.attachments import AttachmentStore
from hangar.hub.store.database import open_hub_database
from hangar.hub.store.workspaces import ensure_workspace
from hangar.hub.terminals import TerminalAccess, device_event_sink
from hangar.hub.workers.adoption import AdoptionWorker
from hangar.hub.workers.outbox import start_local_run_workers
from hangar.paths import Env
from hangar.token_file import TokenSource

Publish = Callable[[str, dict[str, Any]], None]


def fan_out(*targets: Publish) -> Publish:
    """One publish function for the executor's workers that reaches every hub-side target:
    the pages' event bus and the adoption follower (executor events meet hub writers here)."""

    def publish(event: str, data: dict[str, Any]) -> None:
        for target in targets:
            target(event, data)

    return publish


class _Stops:
    def __init__(self, stop: Any) -> None:
        self.stop = stop


@dataclass
class LocalHangar:
    """This device's executor and a hub over its database, wired together."""

    executor: Executor
    hub_engine: Engine
    serve_executor: bool = True
    """Link this device's executor into the hub (``false`` on a team hub's replicas)."""
    link: InProcessExecutorLink = field(init=False)
    events: EventBus = field(init=False)
    remote: DeviceService = field(init=False)
    notifications: Notifications = field(init=False)
    attachments: AttachmentStore = field(init=False)

    def __post_init__(self) -> None:
        self.link = InProcessExecutorLink(
            handler=self.executor.call, supported=self.executor.methods
        )
        self.events = EventBus()
        settings = self.executor.settings
        self.attachments = AttachmentStore(self.hub_engine, settings.paths.attachments_dir)
        self.executor.attach_events(turn_relay(self.events), self.attachments.read)
        workspace = ensure_workspace(self.hub_engine, owner_name=self.owner_name)
        self.timeouts = Timeouts(
            default=float(settings.device_rpc_timeout_seconds),
            fanout=float(settings.device_fanout_timeout_seconds),
        )
        self.remote = DeviceService(self.hub_engine, workspace, self.timeouts)
        self.notifications = Notifications(
            self.hub_engine,
            workspace,
            webhook_secret=str(settings.im_webhook_secret),
            slack_secret=str(settings.slack_signing_secret),
        )

    @property
    def owner_name(self) -> str:
        return self.executor.device.name or "owner"

    @classmethod
    def open(
        cls,
        environ: Env | None = None,
        *,
        stores: Mapping[str, AgentStore] | None = None,
        launcher: AgentLauncher | None = None,
        serve_executor: bool | None = None,
    ) -> LocalHangar:
        """Open (creating and migrating) both databases of this ``$HANGAR_HOME`` (the hub's
        is ``HANGAR_DATABASE_URL`` when set)."""
        executor = Executor.open(environ, stores=stores, launcher=launcher)
        settings = executor.settings
        try:
            engine = open_hub_database(str(settings.database_url) or settings.paths.hub_db)
        except BaseException:
            executor.close()
            raise
        if serve_executor is None:
            serve_executor = bool(settings.serve_executor)
        try:
            return cls(executor, engine, serve_executor=serve_executor)
        except BaseException:
            executor.close()
            engine.dispose()
            raise

    def devices(self) -> DeviceLinks:
        """This device's executor in process (unless it is not served), and every remote
        device through the directory."""
        device = self.executor.device
        local = {device.device_id: self.link} if self.serve_executor else {}
        return DeviceLinks(
            local_device_id=device.device_id if self.serve_executor else "",
            links=dict(local),
            names={device.device_id: device.name} if self.serve_executor else {},
            remote=self.remote.directory,
        )

    def create_app(
        self,
        token: str,
        *,
        extra: dict[str, Any] | None = None,
        hosts: HostPolicy | None = None,
        public_url: str | None = None,
        bind_host: str = "127.0.0.1",
    ) -> FastAPI:
        """The hub app over this hangar; ``bind_host`` is where it will listen (terminals are
        off on a non-loopback address unless the ``remote_terminal`` setting allows them)."""
        settings = self.executor.settings
        access = TerminalAccess.for_bind(is_loopback(bind_host), bool(settings.remote_terminal))
        app = create_app(
            self.hub_engine,
            self.devices(),
            token=token,
            owner_name=self.owner_name,
            extra=extra,
            hosts=hosts,
            terminal_access=access,
            events=self.events,
            attachments=self.attachments,
            remote=RemoteOptions(
                directory=self.remote.directory,
                fanout_timeout=self.timeouts.fanout,
                rpc_timeout=self.timeouts.default,
                public_url=public_url or str(settings.hub_url) or "http://127.0.0.1:8765",
            ),
            notifications=self.notifications,
        )
        ctx = app.state.hub
        assert isinstance(ctx, HubContext)
        ctx.object_storage = ObjectStorage.from_settings(settings)
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
        self.remote.start(ctx.events)
        adoptions = AdoptionWorker(ctx).start()
        workers: list[Worker] = []
        if self.serve_executor:
            local_events = functools.partial(ctx.device_event, self.executor.device.device_id)
            publish = fan_out(local_events, adoptions.notify)
            workers += start_live_workers(self.executor, publish)
            self.executor.resume_deletes()
        workers += start_local_run_workers(ctx)
        workers.append(adoptions)
        deliveries = DeliveryWorker(self.notifications, ctx.events.publish)
        deliveries.start()
        workers.append(deliveries)
        workers.append(_Stops(self.remote.stop))
        return workers

    def server(self, app: FastAPI, host: str, port: int, token: TokenSource) -> HubServer:
        """A :class:`HubServer` for ``app`` whose workers are this hangar's."""
        server = HubServer(
            app=app,
            host=host,
            port=port,
            token=token,
            start_workers=lambda server: self.start_workers(server.app),
            forwarded_allow_ips=str(self.executor.settings.forwarded_allow_ips),
        )
        ctx = app.state.hub
        if isinstance(ctx, HubContext) and not str(self.executor.settings.hub_url):
            ctx.public_url = server.url
        return server

    def close(self) -> None:
        """Stop the executor's workers, then close both databases."""
        self.link.close()
        self.executor.close()
        self.hub_engine.dispose()

    def __enter__(self) -> LocalHangar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
