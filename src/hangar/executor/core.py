"""This device's agent sessions as a library: the LocalTask index, transcripts, and the parts
behind search, lifecycle and deletes.

:class:`ExecutorCore` is what the RPC handlers (:mod:`hangar.executor.service`) and the CLI
share. It receives everything it needs — settings, this device, its database, the agent stores,
the launcher that starts agent CLIs, where streamed turn events go and how uploaded attachments
are fetched — and imports nothing of the hub. Its helpers (search, lifecycle, the delete worker,
the turns) are created on first use and stopped by :meth:`close`. It keeps one control facet
per agent for its lifetime (:meth:`control`): the lifecycle operations, the delete worker and
the turns share it, so Codex runs one resident app-server per executor.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Self

from hangar.agents.base import AgentStore, SessionSource, SessionSummary
from hangar.device import Device, load_or_create_device
from hangar.errors import CorruptFileError, HangarError, NotFoundError, UsageError, shown
from hangar.executor.database import ExecutorDatabase
from hangar.executor.event_sink import EventSink, null_sink
from hangar.executor.rescan import RescanGate
from hangar.executor.stores import AgentStores
from hangar.executor.task_index import TaskIndex
from hangar.executor.turn_table_store import ExecutorTableStore
from hangar.model import LocalTask, Message, Transcript
from hangar.paths import Env
from hangar.private_files import secure_home
from hangar.settings import Settings, load_settings
from hangar.transcripts.engine import CachedTranscript, TranscriptEngine
from hangar.transcripts.glance import glance
from hangar.transcripts.paging import (
    DEFAULT_LIMIT,
    check_limit,
    cursor_around,
    decode_cursor,
    earlier_checklist,
    page,
    user_message_index,
    window,
)
from hangar.transcripts.signature import FileSignature
from hangar.transcripts.tail import TurnTables

if TYPE_CHECKING:
    # The helpers below are imported where they are first used: a `hangar tasks list` needs
    # none of them.
    from hangar.agents.control import AgentControl
    from hangar.agents.launch import AgentLauncher
    from hangar.executor.cleanup import ManagedRoots
    from hangar.executor.controls import ControlBatch
    from hangar.executor.delete_worker import DeleteWorker
    from hangar.executor.presentations import Presentations
    from hangar.executor.search_service import SearchService
    from hangar.executor.task_lifecycle import Lifecycle
    from hangar.executor.terminals import TerminalService
    from hangar.executor.transfer.direct import TransferListener
    from hangar.executor.turn_inputs import AttachmentFetcher, TurnInputs
    from hangar.executor.turns import TurnService
    from hangar.executor.usage import UsageCounter
    from hangar.executor.worktrees import WorktreeService

TERMINAL_BACKLOG = 1024 * 1024
"""Past this many bytes of events waiting for the hub, terminals stop reading their PTY
(well below what the connection's queue keeps, so terminal output is held, never dropped)."""


def _nothing_waits() -> int:
    return 0


class ExecutorCore:
    def __init__(
        self,
        settings: Settings,
        device: Device,
        db: ExecutorDatabase,
        *,
        stores: Mapping[str, AgentStore] | None = None,
        launcher: AgentLauncher | None = None,
        events: EventSink | None = None,
        fetch_attachment: AttachmentFetcher | None = None,
        owns_db: bool = False,
    ) -> None:
        self.settings = settings
        self.device = device
        self.db = db
        self.events: EventSink = events if events is not None else null_sink
        self.fetch_attachment = fetch_attachment
        self.event_backlog: Callable[[], int] = _nothing_waits
        """Bytes of events the sink has not sent on yet (a remote device's connection)."""
        self._controls: dict[str, AgentControl | None] = {}
        self._controls_lock = threading.Lock()
        if not isinstance(stores, AgentStores):
            stores = AgentStores(stores=stores) if stores is not None else AgentStores()
        self.stores: AgentStores = stores
        self._launcher = launcher
        self._launcher_environ: Env | None = None
        self.index = TaskIndex(db, device.device_id)
        self.rescans = RescanGate()
        """Decides when a list rescans the agent homes (a session watcher arms it)."""
        self._lists: dict[tuple[str | None, bool], tuple[int, list[LocalTask]]] = {}
        # Full reads by either engine leave turn tables the user-facing engine opens from;
        # they are kept in executor.db, so the first open after a restart is tail-first too.
        self.turn_tables = TurnTables(store=ExecutorTableStore(db))
        capacity = int(settings.transcript_cache_entries)
        self.engine = TranscriptEngine(capacity=capacity, tables=self.turn_tables)
        # The background indexer and the search indexer read through this one engine, and
        # each tells the other what it parsed: one parse per change feeds both indexes.
        self._indexer = TranscriptEngine(capacity=8, tables=self.turn_tables)
        self._owns_db = owns_db
        self.created_here: set[str] = set()
        """Tasks this process registered for creation (their links are written here)."""
        self._links_restored = False
        self._wake = threading.Event()
        self._worker: threading.Thread | None = None
        self._closing = False

    @classmethod
    def open(
        cls,
        environ: Env | None = None,
        *,
        stores: Mapping[str, AgentStore] | None = None,
        launcher: AgentLauncher | None = None,
        events: EventSink | None = None,
    ) -> Self:
        """Open this device's executor from ``$HANGAR_HOME`` (created and migrated)."""
        settings = load_settings(environ)
        paths = settings.paths
        secure_home(paths)
        device = load_or_create_device(paths.device_file, settings.device_name)
        db = ExecutorDatabase(paths.executor_db)
        if stores is None:
            stores = AgentStores(environ)
        core = cls(
            settings, device, db, stores=stores, launcher=launcher, events=events, owns_db=True
        )
        core._launcher_environ = environ
        return core

    def attach_events(
        self,
        sink: EventSink,
        fetch_attachment: AttachmentFetcher | None = None,
        backlog: Callable[[], int] | None = None,
    ) -> None:
        """Stream turn events to ``sink`` from now on (the composition root wires the hub's
        SSE bus), fetching uploaded attachments with ``fetch_attachment``; ``backlog`` tells
        how many bytes of events ``sink`` still holds (terminals wait while it is large)."""
        self.events = sink
        if backlog is not None:
            self.event_backlog = backlog
        if fetch_attachment is not None:
            self.fetch_attachment = fetch_attachment
        if "turns" in self.__dict__:
            self.turns.sink = sink
        if "turn_inputs" in self.__dict__:
            self.turn_inputs.fetch = self.fetch_attachment

    # -- helpers, created on first use ------------------------------------------------------
    @property
    def launcher(self) -> AgentLauncher:
        """What starts agent CLIs (their own ``$PATH`` unless one was given)."""
        if self._launcher is None:
            from hangar.agents.launch import PathLauncher

            self._launcher = PathLauncher(self._launcher_environ)
        return self._launcher

    @cached_property
    def search(self) -> SearchService:
        from hangar.executor.search_service import SearchService

        return SearchService(
            self.db,
            self.stores,
            self.refresh_index,
            engine=self._indexer,
            on_parse=self.learn,
            revision=self.index.revision,
        )

    @cached_property
    def lifecycle(self) -> Lifecycle:
        from hangar.executor.task_lifecycle import Lifecycle

        return Lifecycle(self.db, self.device)

    @cached_property
    def deleter(self) -> DeleteWorker:
        from hangar.executor.delete_worker import DeleteWorker

        return DeleteWorker(
            self.db,
            self.trash_root,
            self.control,
            on_deleted=self.search.indexer.forget,
            owns_controls=False,
        )

    @cached_property
    def turns(self) -> TurnService:
        from hangar.executor.turns import TurnService

        return TurnService(
            self.index, self.control, self.device.device_id, self.events, self._turn_ended
        )

    @cached_property
    def turn_inputs(self) -> TurnInputs:
        from hangar.executor.turn_inputs import TurnInputs

        return TurnInputs(self.settings.paths.turn_inputs_dir, self.fetch_attachment)

    @cached_property
    def presentations(self) -> Presentations:
        """Skill and plugin tags of messages sent through this executor (RW-231)."""
        from hangar.executor.presentations import Presentations

        return Presentations(self.db)

    def _turn_ended(self, local_task_id: str) -> None:
        # The agent wrote to its transcript: pages re-read it (the watcher may be slower).
        self.refresh_index(force=True)
        changed = {"deviceId": self.device.device_id, "localTaskIds": [local_task_id]}
        self.events("runtime.changed", changed)

    @cached_property
    def worktrees(self) -> WorktreeService:
        """This device's worktree store (``runtime.worktrees.*``, ``docs/worktrees.md``)."""
        from hangar.executor.worktrees import WorktreeService

        return WorktreeService(self.settings.paths.home, _IndexTasks(self), self._archive)

    @cached_property
    def transfer_listener(self) -> TransferListener:
        """Serves this device's offered archives to another device (started on first offer)."""
        from hangar.executor.transfer.direct import TransferListener

        host = str(self.settings.transfer_bind or self.settings.transfer_host or "127.0.0.1")
        return TransferListener(host)

    @cached_property
    def terminals(self) -> TerminalService:
        """This device's terminals beside a task (``runtime.terminal.*``)."""
        from hangar.executor.terminals import TerminalService

        # Looked up at each event: a sink attached later still gets the output, and a
        # connection that falls behind holds every terminal's output (nothing is dropped).
        return TerminalService(
            lambda event, data: self.events(event, data),
            congested=lambda: self.event_backlog() > TERMINAL_BACKLOG,
        )

    def _archive(self, task_ids: list[str]) -> list[str]:
        """Archive tasks (through the agent's control facet where it has one)."""
        with self.controls() as controls:
            done = [self.lifecycle.set_archived(task_id, True, controls) for task_id in task_ids]
        return [r["localTaskId"] for r in done if r.get("archived")]

    @property
    def trash_root(self) -> Path:
        return self.settings.paths.trash_dir

    @cached_property
    def usage(self) -> UsageCounter:
        from hangar.executor.usage import UsageCounter

        return UsageCounter(self.db, self.stores)

    @cached_property
    def roots(self) -> ManagedRoots:
        from hangar.executor.cleanup import ManagedRoots

        return ManagedRoots(self.settings.paths.home)

    def open_control(self, runtime: str) -> AgentControl | None:
        """A new control facet of ``runtime``, rooted where this executor reads its sessions
        (the caller closes it); :meth:`control` is the executor's resident one."""
        from hangar.agents.registry import agent

        record = agent(runtime)
        cls = record.control_class() if record is not None else None
        if record is None or cls is None:
            return None
        home = self.stores.home(runtime) if runtime in self.stores else record.resolve_home()
        return cls(home, self.launcher, self.settings.values)

    def control(self, runtime: str) -> AgentControl | None:
        """The executor's one control facet of ``runtime``, opened on first use and closed
        by :meth:`close`."""
        with self._controls_lock:
            if runtime not in self._controls:
                self._controls[runtime] = self.open_control(runtime)
            return self._controls[runtime]

    def controls(self) -> ControlBatch:
        """Controls for one batch of operations (``with executor.controls() as c: …``); they
        are the resident ones and stay open after the batch."""
        from hangar.executor.controls import ControlBatch

        return ControlBatch(self.control, owned=False)

    # -- tasks ------------------------------------------------------------------------------
    def refresh_index(self, *, force: bool = False) -> None:
        """Bring the index up to date with the agent homes, when something may have changed
        (see :class:`~hangar.executor.rescan.RescanGate`: once per change under a session
        watcher, else one scan shared by concurrent callers)."""
        if self.rescans.run(self._rescan, force=force):
            self._wake.set()

    def _rescan(self) -> None:
        if not self._links_restored:
            # Before the first scan: a session an earlier process created but never linked
            # must become its task, not a second one (RW-281).
            from hangar.executor.created_links import restore_created_links

            self._links_restored = True
            restore_created_links(self, self.created_here)
        self.index.refresh(self.stores.listable(self.index.present_runtimes()))

    def list_tasks(
        self, *, runtime: str | None = None, include_archived: bool = False
    ) -> list[LocalTask]:
        self.refresh_index()
        return self.index.list(runtime=runtime, include_archived=include_archived)

    def listed(
        self, *, runtime: str | None = None, include_archived: bool = False
    ) -> tuple[int, list[LocalTask]]:
        """``(revision, tasks)``: the current list and the
        :meth:`~hangar.executor.task_index.TaskIndex.revision` it was read at.

        The list is built once per revision and shared by every caller until the next change
        (callers must not mutate it). The revision is read before the rows, so a change
        between the two only makes the cached list newer than its revision says."""
        self.refresh_index()
        revision = self.index.revision()
        key = (runtime, include_archived)
        cached = self._lists.get(key)
        if cached is not None and cached[0] == revision:
            return cached
        tasks = self.index.list(runtime=runtime, include_archived=include_archived)
        result = (revision, tasks)
        self._lists[key] = result
        return result

    def resolve_task(self, key: str) -> str:
        """A localTaskId from an id, a unique id prefix, or the agent's own session id."""
        try:
            return self.index.resolve(key)
        except NotFoundError:
            self.refresh_index(force=True)  # a session seconds old: do not wait for the watcher
            return self.index.resolve(key)

    def transcript(
        self,
        local_task_id: str,
        *,
        limit: int = DEFAULT_LIMIT,
        before_cursor: str | None = None,
        refresh: bool = True,
        around_client_user_message_id: str | None = None,
    ) -> tuple[LocalTask, Transcript]:
        """One page of a task's transcript, newest first.

        The first page of a task this process read in full before (or indexed) is served
        tail-first: only its last turns are read, with their final indexes. A page that
        needs older messages reads the whole file. ``around_client_user_message_id`` asks
        for the page around that user message, wherever its index now is (RW-229).
        """
        check_limit(limit)
        if around_client_user_message_id is not None:
            if before_cursor is not None:
                raise UsageError("beforeCursor and aroundClientUserMessageId exclude each other")
            return self._transcript_around(
                local_task_id, around_client_user_message_id, limit, refresh
            )
        if before_cursor is None:
            entry = self._read(self.engine, local_task_id, refresh=refresh, tail=limit)
        else:
            start = max(0, decode_cursor(before_cursor) - limit)
            entry = self._read(self.engine, local_task_id, refresh=refresh, min_index=start)
        task = self.index.get(local_task_id)
        if entry is None:
            return task, Transcript(messages=[], total_messages=0, has_more=False)
        if window(entry.total, limit, before_cursor)[0] < entry.base:
            # The file grew or the tail was short: read it whole for this page.
            entry = self._read(self.engine, local_task_id, refresh=False, min_index=0)
            if entry is None:
                return task, Transcript(messages=[], total_messages=0, has_more=False)
        result = page(
            entry.messages,
            limit=limit,
            before_cursor=before_cursor,
            checklist=entry.summary.checklist,
            context_usage=entry.summary.context_usage,
            base=entry.base,
        )
        if result.checklist is None:
            result.earlier_checklist = earlier_checklist(entry.messages, entry.base)
        return task, result

    def first_look(
        self, local_task_id: str, *, limit: int = DEFAULT_LIMIT
    ) -> tuple[LocalTask, Transcript]:
        """What to show first of a task: its exact first page when this device knows the
        file (:meth:`TranscriptEngine.knows`), else a glance at the file's last turns
        (``settled`` false: indexes count from the first of them), read from its end without
        waiting for the full parse that the next :meth:`transcript` makes (DESIGN §7)."""
        check_limit(limit)
        found = None if self.engine.knows(local_task_id) else self._source(local_task_id)
        look = None
        if found is not None:
            store, source = found
            with contextlib.suppress(OSError):  # gone or unreadable: the page says which
                look = glance(store, source, limit)
        if look is None or look.settled:
            return self.transcript(local_task_id, limit=limit)
        return self.index.get(local_task_id), Transcript(
            messages=look.messages,
            total_messages=len(look.messages),
            has_more=bool(look.offset),
            checklist=look.checklist,
            context_usage=look.context_usage,
            settled=False,
        )

    def _transcript_around(
        self, local_task_id: str, client_id: str, limit: int, refresh: bool
    ) -> tuple[LocalTask, Transcript]:
        entry = self._read(self.engine, local_task_id, refresh=refresh, tail=limit)
        index = user_message_index(entry.messages, client_id) if entry else None
        if index is None and entry is not None and entry.base > 0:
            entry = self._read(self.engine, local_task_id, refresh=False, min_index=0)
            index = user_message_index(entry.messages, client_id) if entry else None
        if entry is None or index is None:
            raise NotFoundError(
                kind="message",
                key=client_id,
                message=f"task {local_task_id} has no user message {shown(client_id)!r}",
            )
        cursor = cursor_around(entry.total, index, limit)
        task, result = self.transcript(
            local_task_id, limit=limit, before_cursor=cursor, refresh=False
        )
        result.around_index = index
        return task, result

    def messages(self, local_task_id: str) -> tuple[LocalTask, list[Message]]:
        """Every message of a task's transcript (a full read, from the cache when current)."""
        entry = self._read(self.engine, local_task_id, refresh=True, min_index=0)
        return self.index.get(local_task_id), list(entry.messages) if entry else []

    # -- background indexing ----------------------------------------------------------------
    def index_pending(self, max_tasks: int = 32) -> int:
        """Read in full up to ``max_tasks`` listed tasks whose file changed since their last
        full read, so the list shows their message count, status and title; returns how
        many were read. The same parse updates the search index. Uses the indexing engine
        (shared with the search indexer), so it never evicts transcripts a user has open."""
        done = 0
        for local_task_id in self.index.stale(max_tasks):
            try:
                entry = self._read(self._indexer, local_task_id, refresh=True)
            except HangarError:
                continue
            if entry is not None:
                self.search.indexer.index_parsed(local_task_id, entry)
            done += 1
        return done

    def start_background_indexing(self) -> None:
        """Run :meth:`index_pending` on a daemon thread after every index refresh."""
        if self._worker is not None:
            return
        self._worker = threading.Thread(
            target=self._index_loop, name="hangar-task-indexer", daemon=True
        )
        self._worker.start()
        self._wake.set()

    def resume_deletes(self) -> int:
        """Start the delete worker when a previous run left items queued; returns how many."""
        pending = self.deleter.pending()
        if pending:
            self.deleter.wake()
        return pending

    def close(self) -> None:
        """Stop the background workers (each finishes its current item first), then close
        the database when this executor opened it."""
        self._closing = True
        self._wake.set()
        if self._worker is not None:
            self._worker.join(timeout=30)
            self._worker = None
        if "deleter" in self.__dict__:
            self.deleter.stop()
        if "terminals" in self.__dict__:
            self.terminals.close_all()
        if "transfer_listener" in self.__dict__:
            self.transfer_listener.close()
        with self._controls_lock:
            controls, self._controls = list(self._controls.values()), {}
        for control in controls:
            if control is not None:
                control.close()
        if self._owns_db:
            self.db.close()

    def _index_loop(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            while self.index_pending(8):
                pass
            # A wake that came while this pass ran (a refresh, or close() itself) may name
            # work the pass did not see: run again before stopping.
            if self._closing and not self._wake.is_set():
                return

    def _read(
        self,
        engine: TranscriptEngine,
        local_task_id: str,
        *,
        refresh: bool,
        tail: int | None = None,
        min_index: int = 0,
    ) -> CachedTranscript | None:
        """The task's parsed transcript, recording what it learned in the index; ``None``
        (and the task marked missing) when its file is gone."""
        found = self._source(local_task_id)
        if found is None:
            return None  # a task being created: the agent has written nothing yet
        store, source = found
        try:
            entry = engine.read(
                local_task_id,
                store,
                source,
                refresh=refresh,
                tail_messages=tail,
                min_index=min_index,
            )
        except FileNotFoundError:
            engine.forget(local_task_id)
            self.index.mark_missing(local_task_id)
            return None
        except OSError as exc:
            raise CorruptFileError(path=source.path, problem=f"cannot read: {exc}") from None
        if entry.base > 0:
            return entry  # a tail-first read knows only its last turns: learn nothing
        self.learn(local_task_id, entry.summary, entry.signature)
        return entry

    def _source(self, local_task_id: str) -> tuple[AgentStore, SessionSource] | None:
        """The task's agent store and session file, ``None`` while the agent has written
        nothing yet (a task being created)."""
        row = self.index.row(local_task_id)
        store = self.stores.get(row["runtime"])
        if store is None:
            raise NotFoundError(kind="runtime", key=row["runtime"])
        if not row["source_path"]:
            return None
        source = SessionSource(
            runtime=row["runtime"],
            session_id=row["session_key"],
            path=Path(row["source_path"]),
            runtime_handle=json.loads(row["runtime_handle"]),
        )
        return store, source

    def learn(self, local_task_id: str, summary: SessionSummary, sig: FileSignature) -> None:
        """Record what a full read of the task's file (at signature ``sig``) learned, unless
        the index already says so. Any full parse reports here — the background indexer's,
        a transcript page's, the search indexer's — so no other reader parses it again."""
        signature = f"{sig.device}:{sig.inode}:{sig.size}:{sig.mtime_ns}"
        try:
            row = self.index.row(local_task_id)
        except NotFoundError:
            return  # deleted meanwhile
        known = (row["message_count"], row["status"], row["title"], row["model"], row["signature"])
        learned = (
            summary.message_count,
            summary.status,
            summary.title or row["title"],
            summary.model or row["model"],
            signature,
        )
        if known != learned:
            self.index.record_parse(local_task_id, summary, signature)


class _IndexTasks:
    """The executor's LocalTask index as the worktree store reads it."""

    def __init__(self, executor: ExecutorCore) -> None:
        self.executor = executor

    def refresh(self) -> None:
        # Deleting or pruning decides on what is on disk now, not on a watcher's last report.
        self.executor.refresh_index(force=True)

    def in_directory(self, path: str) -> tuple[LocalTask, ...]:
        index = self.executor.index
        tasks = index.in_directory(path)
        stale = [t.local_task_id for t in tasks if index.is_stale(t.local_task_id)]
        for local_task_id in stale:
            # Whether a task is running is learned by reading it: never decide on old news.
            with contextlib.suppress(HangarError):
                self.executor._read(self.executor._indexer, local_task_id, refresh=True)
        return index.in_directory(path) if stale else tasks
