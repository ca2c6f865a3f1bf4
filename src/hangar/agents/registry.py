"""The registry of agent store facets: built-ins and plugins register the same way."""

from __future__ import annotations

from collections.abc import Mapping

from hangar.agents.base import AgentStore
from hangar.errors import UsageError
from hangar.paths import Env, agent_homes

_STORES: dict[str, type[AgentStore]] = {}


def register_store(store: type[AgentStore]) -> type[AgentStore]:
    """Register an agent store class (usable as a decorator). Names must be unique."""
    existing = _STORES.get(store.runtime)
    if existing is not None and existing is not store:
        raise UsageError(f"agent store {store.runtime!r} is already registered")
    _STORES[store.runtime] = store
    return store


def store_classes() -> Mapping[str, type[AgentStore]]:
    _load_builtins()
    return dict(_STORES)


def open_stores(environ: Env | None = None) -> dict[str, AgentStore]:
    """One store instance per registered agent, rooted at that agent's home."""
    homes = agent_homes(environ)
    stores: dict[str, AgentStore] = {}
    for runtime, cls in store_classes().items():
        home = homes.get(runtime)
        if home is not None:
            stores[runtime] = cls(home)
    return stores


_BUILTINS_LOADED = False


def _load_builtins() -> None:
    """Import the built-in agent modules so their ``register_store`` calls run."""
    global _BUILTINS_LOADED
    if _BUILTINS_LOADED:
        return
    _BUILTINS_LOADED = True
    import importlib

    for name in BUILTIN_AGENT_MODULES:
        importlib.import_module(f"hangar.agents.{name}")


#: Built-in agent modules; each registers its facets on import.
BUILTIN_AGENT_MODULES: tuple[str, ...] = (
    "codex",
    "claude",
    "opencode",
    "continue_cli",
    "gemini",
    "copilot",
    "qwen",
    "cursor",
    "kiro",
)
