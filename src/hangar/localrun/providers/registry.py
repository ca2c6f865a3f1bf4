"""The local-run providers (LR-122): every agent's ``live`` facet, plus providers registered
here that belong to no agent hangar reads (external plugins).

Built-in providers are the ``live`` facets of the agent registry
(:mod:`hangar.agents.registry`), loaded only when a run asks for them; a provider registered
with :func:`register_provider` is looked up the same way, by executable name. A name taken by
an agent's provider cannot be registered again (never a silent shadow).

:func:`provider_for` looks up, in the seed's order (LR-138): these providers, then the
provider plugins of ``config.toml`` and ``$HANGAR_HOME/localrun-providers/``
(:mod:`hangar.localrun.plugins`). A plugin that claims a built-in's name, or two plugins with
one name, make the lookup of that name an error naming the manifests (LR-139).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath

from hangar.agents.registry import agents
from hangar.errors import UsageError
from hangar.localrun.providers.base import Provider

_EXTRA: dict[str, type[Provider]] = {}


def register_provider(provider: type[Provider]) -> type[Provider]:
    """Register a provider class (usable as a decorator); names must be unique."""
    taken = {record.runtime for record in agents().values() if record.live is not None}
    existing = _EXTRA.get(provider.name)
    if provider.name in taken or (existing is not None and existing is not provider):
        raise UsageError(f"local-run provider {provider.name!r} is already registered")
    _EXTRA[provider.name] = provider
    return provider


def providers() -> Mapping[str, type[Provider]]:
    """Every provider by name: the agents' live facets first, then registered ones."""
    found: dict[str, type[Provider]] = {}
    for record in agents().values():
        if record.live is None:
            continue
        cls = record.live_class()
        if not (isinstance(cls, type) and issubclass(cls, Provider)):
            raise UsageError(f"agent {record.runtime!r}: its live facet is not a Provider")
        found[cls.name] = cls
    found.update(_EXTRA)
    return found


def executable_name(arg0: str) -> str:
    """``basename(args[0])`` without a ``.exe`` suffix: how a provider is chosen."""
    name = PurePath(arg0).name
    return name[:-4] if name.lower().endswith(".exe") else name


def provider_for(arg0: str) -> type[Provider]:
    """The provider running ``arg0``; a clear error naming the supported CLIs otherwise."""
    from hangar.localrun.plugins import provider as plugins  # keeps built-in-only imports small

    name = executable_name(arg0)
    known = providers()
    for provider in known.values():
        if name in provider.executables:
            plugins.refuse_clash(name)
            return provider
    plugin = plugins.plugin_provider_for(name)
    if plugin is not None:
        return plugin
    supported = ", ".join(sorted(e for p in known.values() for e in p.executables))
    installed = plugins.plugin_names()
    extra = f"; plugins: {', '.join(installed)}" if installed else ""
    raise UsageError(
        f"no local-run provider for `{name}` yet; supported: {supported}{extra} "
        "(add one with `hangar local-run provider install DIR`)"
    )
