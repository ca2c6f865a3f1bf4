"""The single provider registry (LR-122): built-ins register here; plugins are found next.

:func:`provider_for` looks up, in the seed's order (LR-138): the built-ins registered here,
then the provider plugins of ``config.toml`` and ``$HANGAR_HOME/localrun-providers/``
(:mod:`hangar.localrun.plugins`). A plugin that claims a built-in's name, or two plugins with one
name, make the lookup of that name an error naming the manifests (LR-139).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import PurePath

from hangar.errors import UsageError
from hangar.localrun.providers.base import Provider

_PROVIDERS: dict[str, type[Provider]] = {}

#: Built-in provider modules; each calls :func:`register_provider` on import.
BUILTIN_PROVIDER_MODULES = ("hangar.localrun.providers.codex", "hangar.localrun.providers.claude")
_loaded = False


def register_provider(provider: type[Provider]) -> type[Provider]:
    """Register a provider class (usable as a decorator); names must be unique."""
    existing = _PROVIDERS.get(provider.name)
    if existing is not None and existing is not provider:
        raise UsageError(f"local-run provider {provider.name!r} is already registered")
    _PROVIDERS[provider.name] = provider
    return provider


def providers() -> Mapping[str, type[Provider]]:
    global _loaded
    if not _loaded:
        _loaded = True
        for module in BUILTIN_PROVIDER_MODULES:
            importlib.import_module(module)
    return dict(_PROVIDERS)


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
