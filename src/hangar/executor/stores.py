"""The agent stores an executor reads, each opened (its module imported) when first needed.

Opening every registered agent's store imports every agent's parser — nine modules and their
dependencies (YAML for one, SQLite readers for others) — although a machine usually has the
sessions of two or three agents. :class:`AgentStores` is a ``Mapping[runtime, AgentStore]``
over the registry that resolves each agent's home from its declaration alone and opens the
store on first access. :meth:`AgentStores.listable` names the stores worth listing: those whose
home (or one of its extra homes) exists, plus any that still have tasks in the index (so a
home that went away gets its tasks marked missing). An agent keeps its sessions under its
declared homes (the registry's contract), so a store with no home on disk has nothing to list.

Built from an explicit mapping (tests, a composition that picks its stores), every store is
already open and every one is listable, as before.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator, Mapping
from typing import TYPE_CHECKING

from hangar.agents.homes import AgentHome
from hangar.paths import Env

if TYPE_CHECKING:
    from hangar.agents.base import AgentStore
    from hangar.agents.registry import Agent


class AgentStores(Mapping[str, "AgentStore"]):
    """Stores by runtime: from the registry, opened lazily, or from an explicit mapping."""

    def __init__(
        self, environ: Env | None = None, *, stores: Mapping[str, AgentStore] | None = None
    ) -> None:
        self._lock = threading.Lock()
        self._open: dict[str, AgentStore] = {}
        self._records: dict[str, Agent] = {}
        self._homes: dict[str, AgentHome] = {}
        if stores is not None:
            self._open = dict(stores)
            self._homes = {name: store.home for name, store in stores.items()}
            return
        from hangar.agents.registry import agents

        for name, record in agents().items():
            if record.store is not None:
                self._records[name] = record
                self._homes[name] = record.resolve_home(environ)

    def __getitem__(self, runtime: str) -> AgentStore:
        store = self._open.get(runtime)
        if store is not None:
            return store
        record = self._records.get(runtime)
        if record is None:
            raise KeyError(runtime)
        with self._lock:
            store = self._open.get(runtime)
            if store is None:
                cls = record.store_class()
                if cls is None:  # pragma: no cover - records without a store are not kept
                    raise KeyError(runtime)
                store = self._open[runtime] = cls(self._homes[runtime])
        return store

    def __iter__(self) -> Iterator[str]:
        return iter(self._homes)

    def __len__(self) -> int:
        return len(self._homes)

    def __contains__(self, runtime: object) -> bool:
        return runtime in self._homes

    def home(self, runtime: str) -> AgentHome:
        """Where ``runtime`` keeps its sessions (no store module is imported)."""
        return self._homes[runtime]

    def homes(self) -> list[AgentHome]:
        return list(self._homes.values())

    def is_open(self, runtime: str) -> bool:
        return runtime in self._open

    def listable(self, indexed: Collection[str] = ()) -> list[AgentStore]:
        """The stores a refresh must list: every open store, and each other one whose home
        exists on disk or whose runtime is in ``indexed`` (runtimes with present tasks)."""
        out: list[AgentStore] = []
        for runtime, home in self._homes.items():
            if self.is_open(runtime) or runtime in indexed or _exists(home):
                out.append(self[runtime])
        return out


def _exists(home: AgentHome) -> bool:
    return any(path.exists() for path in (home.root, *(p for _, p in home.extra)))
