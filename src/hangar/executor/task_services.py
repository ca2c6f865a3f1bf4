"""The per-executor helpers behind search, archive and delete, created on first use.

:func:`services_for` attaches one :class:`TaskServices` to an
:class:`~hangar.executor.service.Executor`: the search indexer (and its background worker),
the delete worker (one thread, started with the first delete and on start-up when the queue
has work), the trash location, the worktree store and the Codex app-server factory.
``codex_factory`` defaults to starting ``codex app-server`` from ``PATH`` when Codex is
installed; tests set it to a process inside their sandbox.
"""

from __future__ import annotations

import os
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hangar.agents.codex_appserver import CodexAppServer
from hangar.executor.cleanup import ManagedRoots
from hangar.executor.codex_control import AppServerFactory, CodexControl, default_codex_factory
from hangar.executor.delete_worker import DeleteWorker
from hangar.executor.search_index import IndexProgress, SearchIndexer, source_size
from hangar.executor.task_lifecycle import Lifecycle
from hangar.executor.worktrees import WorktreeService
from hangar.model import LocalTask
from hangar.paths import agent_homes

if TYPE_CHECKING:
    from hangar.executor.service import Executor

INDEX_WORKERS = min(4, os.cpu_count() or 1)
"""Processes that parse sessions during a large first build (see ``SearchIndexer.sync``)."""
FOREGROUND_INDEX_BYTES = 16 * 1024 * 1024
"""A search waits for indexing when less than this is pending; more runs in the background."""


@dataclass
class TaskServices:
    executor: Executor
    codex_factory: AppServerFactory | None = None
    progress: IndexProgress = field(default_factory=IndexProgress)
    indexing: bool = False

    def __post_init__(self) -> None:
        ex = self.executor
        if self.codex_factory is None:
            self.codex_factory = default_codex_factory()
        self.indexer = SearchIndexer(ex.db, ex.stores)
        self.paths = ex.settings.paths
        self.trash_root: Path = self.paths.trash_dir
        self.roots = ManagedRoots(self.paths.home)
        self.lifecycle = Lifecycle(ex.db, ex.device, self.codex_home)
        self.deleter = DeleteWorker(
            ex.db, self.trash_root, self._codex_server, on_deleted=self.indexer.forget
        )
        self.worktrees = WorktreeService(self.paths.home, _IndexTasks(ex), self._archive)
        self._index_lock = threading.Lock()
        self._delete_started = False
        self._background: threading.Thread | None = None

    @property
    def codex_home(self) -> Path:
        store = self.executor.stores.get("codex")
        return store.home.root if store is not None else agent_homes()["codex"].root

    def codex(self) -> CodexControl:
        return CodexControl(self.codex_factory)

    def _archive(self, task_ids: list[str]) -> list[str]:
        """Archive tasks (through Codex for Codex threads); the ids that were archived."""
        with self.codex() as codex:
            done = [self.lifecycle.set_archived(task_id, True, codex) for task_id in task_ids]
        return [r["localTaskId"] for r in done if r.get("archived")]

    def _codex_server(self) -> CodexAppServer | None:
        return self.codex_factory() if self.codex_factory is not None else None

    # -- search index ---------------------------------------------------------------------
    def sync_index(self, report: object = None) -> IndexProgress:
        """Refresh the task index, then index what changed (one sync at a time)."""
        self.executor.refresh_index()
        with self._index_lock:
            self.indexing = True
            try:
                callback = report if callable(report) else None

                def track(state: IndexProgress) -> None:
                    self.progress = state
                    if callback is not None:
                        callback(state)

                return self.indexer.sync(track, workers=INDEX_WORKERS)
            finally:
                self.indexing = False

    def ensure_index(self) -> IndexProgress | None:
        """Index now when little is pending; otherwise index in the background and return
        the progress so far (the search then answers from what is already indexed)."""
        self.executor.refresh_index()
        if self.indexing:
            return self.progress
        pending = self.indexer.pending()
        if not pending:
            return None
        size = sum(source_size(row["source_path"]) for row in pending)
        if size <= FOREGROUND_INDEX_BYTES:
            self.sync_index()
            return None
        if self._background is None or not self._background.is_alive():
            self._background = threading.Thread(
                target=self.sync_index, name="hangar-search-index", daemon=True
            )
            self._background.start()
        return self.progress

    # -- deletes --------------------------------------------------------------------------
    def wake_deleter(self) -> None:
        if not self._delete_started:
            self._delete_started = True
            self.deleter.start()
        self.deleter.wake()

    def resume_deletes(self) -> int:
        """Start the delete worker when a previous run left items queued; returns how many."""
        pending = (
            self.deleter.db.read()
            .execute("SELECT count(*) FROM delete_queue WHERE state IN ('pending', 'running')")
            .fetchone()[0]
        )
        if pending:
            self.wake_deleter()
        return int(pending)

    def close(self) -> None:
        if self._delete_started:
            self.deleter.stop()


@dataclass
class _IndexTasks:
    """The executor's LocalTask index as the worktree store reads it."""

    executor: Executor

    def refresh(self) -> None:
        self.executor.refresh_index()

    def in_directory(self, path: str) -> tuple[LocalTask, ...]:
        return self.executor.index.in_directory(path)


_SERVICES: weakref.WeakKeyDictionary[Executor, TaskServices] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def services_for(executor: Executor) -> TaskServices:
    with _LOCK:
        found = _SERVICES.get(executor)
        if found is None:
            found = TaskServices(executor)
            _SERVICES[executor] = found
        return found


def close_services(executor: Executor) -> None:
    """Stop the executor's delete worker (it finishes its current item first), if started."""
    with _LOCK:
        found = _SERVICES.pop(executor, None)
    if found is not None:
        found.close()
