"""The registry of agents: one :class:`Agent` record per agent CLI.

An agent record names the runtime, how it is shown (display name, badge), where the agent keeps
its sessions (its homes, each with the agent's own override variable) and the facets hangar
implements for it, as lazy ``"module:attribute"`` references so that listing agents imports no
parser, PTY or web code:

* ``store``   — an :class:`~hangar.agents.base.AgentStore` subclass (discover and read sessions);
* ``live``    — a local-run provider class (``hangar run`` / ``hangar discuss``);
* ``control`` — an :class:`~hangar.agents.control.AgentControl` subclass (rename, archive,
  delete … through the agent's own interface);
* ``usage``   — a function ``(store, source) -> Iterator[UsageEvent]``: the session's model
  calls with their token counts, from the agent's own records.

Built-ins are declared in :mod:`hangar.agents.builtin`; third-party packages add agents through
the ``hangar.agents`` entry point group, each entry point naming an :class:`Agent` object.
Everything else — ``hangar paths``, the executor, the hub's rendering, the tests' isolation —
reads this registry; no code outside ``agents/`` branches on a runtime name.
"""

from __future__ import annotations

import importlib
import logging
import shlex
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hangar.agents.homes import AgentHome, HomeSpec
from hangar.errors import UsageError
from hangar.paths import Env

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from hangar.agents.base import AgentStore, SessionSource
    from hangar.agents.control import AgentControl
    from hangar.model import UsageEvent

    UsageScanner = Callable[[AgentStore, SessionSource], Iterator[UsageEvent]]

log = logging.getLogger("hangar.agents")

ENTRY_POINT_GROUP = "hangar.agents"


@dataclass(frozen=True)
class Agent:
    """One agent CLI as hangar knows it."""

    runtime: str
    """Stable runtime id used in the API (``codex``, ``claude``, ``opencode``, …)."""
    display_name: str
    badge: str
    """Two characters shown where there is no room for the name (sidebar, lists)."""
    home: HomeSpec
    extra_homes: tuple[tuple[str, HomeSpec], ...] = ()
    """Other named locations of the agent (OpenCode's config dir, Kiro's legacy data)."""
    store: str | None = None
    live: str | None = None
    control: str | None = None
    usage: str | None = None
    executables: tuple[str, ...] = ()
    """Executable basenames that run this agent (how ``hangar run -- CLI`` picks it)."""
    resume: tuple[str, ...] = ()
    """The agent's own command that continues a session in a terminal, ``{session}`` standing
    for its id (``("codex", "resume", "{session}")``); empty when the CLI has none by id."""

    def resume_command(self, session_id: str, cwd: str | None = None) -> str | None:
        """The shell line a user pastes to continue ``session_id`` in its own directory."""
        if not self.resume or not session_id:
            return None
        argv = shlex.join(part.replace("{session}", session_id) for part in self.resume)
        return f"cd {shlex.quote(cwd)} && {argv}" if cwd else argv

    def resolve_home(self, environ: Env | None = None) -> AgentHome:
        root, variable = self.home.resolve(environ)
        extra = tuple((name, spec.resolve(environ)[0]) for name, spec in self.extra_homes)
        return AgentHome(self.runtime, root, variable, extra)

    def home_variables(self) -> tuple[str, ...]:
        """Every environment variable that moves one of this agent's homes."""
        specs = (self.home, *(spec for _, spec in self.extra_homes))
        return tuple(dict.fromkeys(s.variable for s in specs if s.variable))

    def facets(self) -> tuple[str, ...]:
        return tuple(
            name
            for name in ("store", "live", "control", "usage")
            if getattr(self, name) is not None
        )

    def store_class(self) -> type[AgentStore] | None:
        return self._load("store")  # type: ignore[no-any-return]

    def open_store(self, environ: Env | None = None) -> AgentStore | None:
        cls = self.store_class()
        return cls(self.resolve_home(environ)) if cls is not None else None

    def control_class(self) -> type[AgentControl] | None:
        return self._load("control")  # type: ignore[no-any-return]

    def usage_scanner(self) -> UsageScanner | None:
        return self._load("usage")  # type: ignore[no-any-return]

    def live_class(self) -> Any:
        """The local-run provider class (typed by the local-run layer that uses it)."""
        return self._load("live")

    def _load(self, facet: str) -> Any:
        reference = getattr(self, facet)
        if reference is None:
            return None
        module_name, _, attribute = reference.partition(":")
        try:
            return getattr(importlib.import_module(module_name), attribute)
        except (ImportError, AttributeError) as exc:
            raise UsageError(
                f"agent {self.runtime!r}: cannot load its {facet} facet {reference!r}: {exc}"
            ) from None


_AGENTS: dict[str, Agent] = {}
_LOADED = False
_LOCK = threading.RLock()


def register_agent(agent: Agent) -> Agent:
    """Add an agent record; a runtime name may be registered once (the same record again is
    a no-op)."""
    with _LOCK:
        existing = _AGENTS.get(agent.runtime)
        if existing is not None and existing != agent:
            raise UsageError(f"agent {agent.runtime!r} is already registered")
        _AGENTS[agent.runtime] = agent
    return agent


def unregister_agent(runtime: str) -> None:
    """Remove a record added with :func:`register_agent` (tests, plugin reloads)."""
    with _LOCK:
        _AGENTS.pop(runtime, None)


def agents() -> Mapping[str, Agent]:
    """Every registered agent: the built-ins first, then plugins, in registration order."""
    _load()
    with _LOCK:
        return dict(_AGENTS)


def agent(runtime: str) -> Agent | None:
    return agents().get(runtime)


def agent_homes(environ: Env | None = None) -> dict[str, AgentHome]:
    """The home of every registered agent, with its own override variables applied."""
    return {name: a.resolve_home(environ) for name, a in agents().items()}


def home_variables() -> tuple[str, ...]:
    """Every variable that moves some agent's home (for isolating tests and sandboxes)."""
    names: dict[str, None] = {}
    for a in agents().values():
        names.update(dict.fromkeys(a.home_variables()))
    return tuple(names)


def open_stores(environ: Env | None = None) -> dict[str, AgentStore]:
    """One store instance per registered agent that has a store facet, rooted at its home."""
    stores: dict[str, AgentStore] = {}
    for name, a in agents().items():
        store = a.open_store(environ)
        if store is not None:
            stores[name] = store
    return stores


def store_classes() -> Mapping[str, type[AgentStore]]:
    out: dict[str, type[AgentStore]] = {}
    for name, a in agents().items():
        cls = a.store_class()
        if cls is not None:
            out[name] = cls
    return out


def agent_for_executable(name: str) -> Agent | None:
    """The agent whose CLI is called ``name`` (``basename(argv[0])`` without ``.exe``)."""
    return next((a for a in agents().values() if name in a.executables), None)


def _load() -> None:
    global _LOADED
    with _LOCK:
        if _LOADED:
            return
        _LOADED = True
        from hangar.agents.builtin import BUILTIN_AGENTS

        for record in BUILTIN_AGENTS:
            register_agent(record)
        for record in _entry_point_agents():
            try:
                register_agent(record)
            except UsageError as exc:
                log.warning("agent plugin ignored: %s", exc)


def _declares_group(group: str) -> bool:
    """Whether any installed distribution may declare entry points in ``group``.

    ``importlib.metadata`` costs tens of milliseconds to import and scan, on every command
    that lists agents. A distribution declares entry points in its ``*.dist-info`` (or
    ``*.egg-info``) ``entry_points.txt``, so reading those few small files answers "none" for
    the common case; anything unusual on ``sys.path`` (a zip, an unreadable folder) answers
    "maybe" and the full lookup runs.
    """
    import os
    import sys
    from pathlib import Path

    header = f"[{group}]".encode()
    for folder in sys.path:
        try:
            entries = list(os.scandir(folder or "."))
        except NotADirectoryError:
            return True  # a zip archive on sys.path: let importlib.metadata look inside
        except OSError:
            continue
        for entry in entries:
            if entry.name.endswith((".dist-info", ".egg-info")):
                try:
                    if header in Path(entry.path, "entry_points.txt").read_bytes():
                        return True
                except (FileNotFoundError, NotADirectoryError):
                    continue
                except OSError:
                    return True
    return False


def _entry_point_agents() -> list[Agent]:
    if not _declares_group(ENTRY_POINT_GROUP):
        return []
    from importlib.metadata import entry_points

    found: list[Agent] = []
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            record = point.load()
        except Exception as exc:  # a broken plugin must not take hangar down
            log.warning("agent plugin %s could not be loaded: %s", point.value, exc)
            continue
        if not isinstance(record, Agent):
            log.warning(
                "agent plugin %s is not a hangar.agents.registry.Agent (got %s)",
                point.value,
                type(record).__name__,
            )
            continue
        found.append(record)
    return found
