"""Background workers that keep the runtime view live while ``hangar serve`` runs.

- :class:`IndexWorker` asks the executor to discover and index this device's sessions once at
  start (``runtime.tasks.list``, then ``runtime.index.run`` where the executor has it) and logs
  its progress; pages never wait for it.
- :class:`SessionWatcher` watches every agent home with ``watchfiles`` and, after each batch of
  changes (new or growing session files), publishes ``runtime.changed`` so open pages refresh
  the list and the open transcript. Agent homes that appear later are picked up within a few
  seconds. hangar's own home is never watched. A folder that cannot be read is left out
  (one warning per path) and the rest is still watched: the folders above it are watched
  without recursion (their listing is polled every few seconds), their readable children
  recursively. While it watches it arms the executor's
  :class:`~hangar.executor.rescan.RescanGate` and marks it dirty on every batch (before the
  event goes out), so a list rescans the homes once per change instead of once per request;
  its probe (one ``stat`` per agent home) disarms that shortcut the moment an agent home
  appears or vanishes, until the watcher has restarted on the new set. (With an unreadable
  folder, the gate is not armed: a polled listing does not see every change, so lists rescan.)

Both are plain threads with ``stop()``; :func:`start_live_workers` starts them.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import watchfiles

from hangar.agents.homes import AgentHome
from hangar.executor.core import ExecutorCore
from hangar.executor.rescan import RescanGate
from hangar.executor.search_index import IndexProgress
from hangar.regular_files import warn_once

log = logging.getLogger("hangar.executor.watcher")

Publish = Callable[[str, dict[str, Any]], None]
RUNTIME_CHANGED = "runtime.changed"
RECHECK_MS = 3000


def watched_roots(homes: Iterable[AgentHome], hangar_home: Path) -> list[Path]:
    """Existing agent-home directories, minus hangar's home."""
    return [path for path in candidate_roots(homes, hangar_home) if path.is_dir()]


def candidate_roots(homes: Iterable[AgentHome], hangar_home: Path) -> list[Path]:
    """Every agent-home directory, existing or not, minus hangar's home."""
    roots: list[Path] = []
    for home in homes:
        for path in (home.root, *(p for _, p in home.extra)):
            if not _inside(path, hangar_home) and path not in roots:
                roots.append(path)
    return roots


def _inside(path: Path, parent: Path) -> bool:
    try:
        path.resolve().relative_to(parent.resolve())
    except ValueError:
        return False
    return True


@dataclass
class WatchPlan:
    """What to watch: ``recursive`` trees hold no unreadable folder; each ``shallow``
    folder holds one somewhere below it, so only its own entries are checked (by polling)."""

    recursive: list[Path] = field(default_factory=list)
    shallow: list[Path] = field(default_factory=list)

    def listing(self) -> tuple[object, ...]:
        """The shallow folders' stat marks: they change when an entry is added or removed."""
        marks: list[object] = []
        for folder in self.shallow:
            try:
                st = folder.stat()
                marks.append((st.st_ino, st.st_mtime_ns))
            except OSError:
                marks.append(None)
        return tuple(marks)


def unreadable_folders(roots: Iterable[Path]) -> set[Path]:
    """Folders under ``roots`` that cannot be listed (each warned about once)."""
    found: set[Path] = set()

    def failed(error: OSError) -> None:
        if error.filename:
            path = Path(error.filename)
            found.add(path)
            warn_once(log, f"watch:{path}", "not watching %s: %s", path, error.strerror)

    for root in roots:
        for _ in os.walk(root, onerror=failed):
            pass
    return found


def watch_plan(roots: Iterable[Path], unreadable: set[Path]) -> WatchPlan:
    """Cover every readable folder under ``roots`` while leaving ``unreadable`` ones out."""
    plan = WatchPlan()

    def add(folder: Path) -> None:
        if folder in unreadable:
            return
        if not any(folder in bad.parents for bad in unreadable):
            plan.recursive.append(folder)
            return
        plan.shallow.append(folder)
        try:
            children = sorted(e.path for e in os.scandir(folder) if e.is_dir(follow_symlinks=False))
        except OSError:
            return
        for child in children:
            add(Path(child))

    for root in roots:
        add(root)
    return plan


class SessionWatcher(threading.Thread):
    """Publishes ``runtime.changed {deviceId, paths}`` after changes under the agent homes."""

    def __init__(
        self,
        device_id: str,
        homes: list[AgentHome],
        hangar_home: Path,
        publish: Publish,
        gate: RescanGate | None = None,
    ) -> None:
        super().__init__(name="hangar-session-watcher", daemon=True)
        self.device_id = device_id
        self.homes = homes
        self.hangar_home = hangar_home
        self.publish = publish
        self.gate = gate
        self._stopping = threading.Event()
        self.batches = 0
        self.restarts = 0
        self.plan = WatchPlan()
        self._unreadable: set[Path] = set()
        self._candidates = candidate_roots(homes, hangar_home)

    def stop(self) -> None:
        self._stopping.set()
        if self.gate is not None:
            self.gate.watching(False)

    def run(self) -> None:
        previous: list[Path] | None = None
        while not self._stopping.is_set():
            roots = watched_roots(self.homes, self.hangar_home)
            if previous is not None and (added := [r for r in roots if r not in previous]):
                # A new agent home may already hold sessions written before we watched it.
                paths = [str(r) for r in added]
                self.publish(RUNTIME_CHANGED, {"deviceId": self.device_id, "paths": paths})
            previous = roots
            if not roots:
                self._stopping.wait(RECHECK_MS / 1000)
                continue
            log.info("watching %d agent home(s) for new sessions", len(roots))
            if self._unreadable:  # one may have become readable, or a new one appeared
                self._unreadable = unreadable_folders(roots)
            self.plan = watch_plan(roots, self._unreadable)
            try:
                self._watch(roots)
            except PermissionError:
                # A folder we may not read: find every such folder, watch around them.
                self._unreadable = unreadable_folders(roots)
                self.restarts += 1
            except (OSError, RuntimeError) as exc:  # a root vanished under us: start over
                warn_once(log, f"watcher:{exc}", "session watcher restarts: %s", exc)
                self.restarts += 1
                self._stopping.wait(1)

    def _watch(self, roots: list[Path]) -> None:
        try:
            self._watch_batches(roots)
        finally:
            if self.gate is not None:
                self.gate.watching(False)

    def _stale(self, roots: list[Path]) -> bool:
        """Whether an agent home appeared or vanished since ``roots`` were watched."""
        return any(path.is_dir() != (path in roots) for path in self._candidates)

    def _watch_batches(self, roots: list[Path]) -> None:
        plan = self.plan
        listing = plan.listing()
        if not plan.recursive:
            self._poll(roots, plan, listing)
            return
        armed = False
        for changes in watchfiles.watch(
            *plan.recursive,
            stop_event=self._stopping,
            debounce=300,
            step=50,
            rust_timeout=RECHECK_MS,
            yield_on_timeout=True,
            raise_interrupt=False,
        ):
            paths = sorted({path for _, path in changes})
            if not armed:
                armed = True
                if not paths:
                    # A session written after start but before the watch was live raised no
                    # event: say once that the homes may have changed (before the gate is
                    # armed, which makes the next list rescan anyway).
                    roots_changed = {"deviceId": self.device_id, "paths": [str(r) for r in roots]}
                    self.publish(RUNTIME_CHANGED, roots_changed)
                # The first yield (changes or the first timeout) comes from a live inotify
                # watch: from here on every change reaches this loop, so the gate may trust it.
                if self.gate is not None and not plan.shallow:
                    self.gate.watching(True, probe=lambda: self._stale(roots))
                    log.info("session watcher armed: lists rescan the agent homes on change only")
            replan = plan.listing() != listing
            if replan:  # a folder appeared beside an unreadable one: watch it too
                paths += [str(folder) for folder in plan.shallow]
            if paths:
                self._changed(paths)
            if replan or watched_roots(self.homes, self.hangar_home) != roots:
                return  # an agent home appeared or disappeared: watch the new set

    def _poll(self, roots: list[Path], plan: WatchPlan, listing: tuple[object, ...]) -> None:
        """Only shallow folders to watch: poll their listings."""
        while not self._stopping.wait(RECHECK_MS / 1000):
            if plan.listing() != listing:
                self._changed([str(folder) for folder in plan.shallow])
                return
            if watched_roots(self.homes, self.hangar_home) != roots:
                return

    def _changed(self, paths: list[str]) -> None:
        if self.gate is not None:
            self.gate.changed()  # before the event: a list it triggers must rescan
        self.batches += 1
        log.debug("%d changed path(s) under the agent homes", len(paths))
        self.publish(RUNTIME_CHANGED, {"deviceId": self.device_id, "paths": paths[:50]})


class IndexWorker(threading.Thread):
    """Discovers and indexes this device's sessions once at start, logging its progress.

    Steps: list (discovery), bring the search index up to date (in parse worker processes
    for a large first build), then read the sessions whose files still changed since their
    last full read (:meth:`~hangar.executor.core.ExecutorCore.index_pending`). Each parse
    feeds both the search index and the list's counts, so the second step only reads what
    the first could not (none, usually). Each step logs how far it got; pages never wait.
    """

    def __init__(self, executor: ExecutorCore, publish: Publish) -> None:
        super().__init__(name="hangar-index-worker", daemon=True)
        self.executor = executor
        self.publish = publish
        self.done = threading.Event()
        self._stopping = threading.Event()
        self.summary: dict[str, Any] = {}

    def stop(self) -> None:
        self._stopping.set()
        self.done.wait(timeout=30)

    def run(self) -> None:
        started = time.monotonic()
        try:
            log.info("indexing: discovering sessions…")
            total = len(self.executor.list_tasks(include_archived=True))
            log.info("indexing: %d sessions found in %.2fs", total, time.monotonic() - started)
            self.summary["sessions"] = total
            self.publish(RUNTIME_CHANGED, {"deviceId": "", "reason": "listed"})
            self.summary["searchIndex"] = self._sync_search_index()
            self.summary["read"] = self._read_changed(total)
            # Message counts, status and titles are known now: lists refresh.
            self.publish(RUNTIME_CHANGED, {"deviceId": "", "reason": "indexed"})
            log.info("indexing: done in %.2fs", time.monotonic() - started)
            self.publish("index.progress", {"done": True, **self.summary})
        except Exception as exc:  # a worker must never take the hub down
            log.warning("indexing failed: %s", exc)
        finally:
            self.done.set()

    def _read_changed(self, total: int) -> int:
        done = 0
        while not self._stopping.is_set():
            count = self.executor.index_pending(16)
            if count == 0:
                break
            done += count
            log.info("indexing: read %d changed session(s) of %d", done, total)
            self.publish("index.progress", {"read": done, "sessions": total})
        return done

    def _sync_search_index(self) -> dict[str, Any]:
        last = [0.0]

        def report(progress: IndexProgress) -> None:
            now = time.monotonic()
            if now - last[0] >= 1.0:
                last[0] = now
                state = progress.as_json()
                log.info(
                    "search index: %s/%s sessions, %.1f/%.1f MB",
                    state.get("tasksDone"),
                    state.get("tasksTotal"),
                    state.get("doneBytes", 0) / 1e6,
                    state.get("totalBytes", 0) / 1e6,
                )
                self.publish("index.progress", {"searchIndex": state})

        state: dict[str, Any] = self.executor.search.sync(report).as_json()
        log.info(
            "search index: %s sessions indexed, %s error(s)",
            state.get("tasksDone"),
            state.get("errors"),
        )
        return state


def start_live_workers(executor: ExecutorCore, publish: Publish) -> list[Any]:
    """Start the index worker, the session watcher and the final-reply watch
    (:class:`~hangar.executor.task_updates.TaskUpdates`) of ``executor``'s device."""
    from hangar.executor.task_updates import TaskUpdates

    updates = TaskUpdates(executor, publish)
    index = IndexWorker(executor, updates.relay)
    homes = executor.stores.homes()
    watcher = SessionWatcher(
        executor.device.device_id,
        homes,
        executor.settings.paths.home,
        updates.relay,
        gate=executor.rescans,
    )
    updates.start()
    index.start()
    watcher.start()
    return [index, watcher, updates]
