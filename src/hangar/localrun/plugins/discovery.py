"""Finding provider plugins, in the seed's order (LR-134, LR-138, LR-139).

1. the built-in providers of the registry (their names and executable names);
2. ``[localrun_providers.<name>]`` tables of ``$HANGAR_HOME/config.toml``, each with
   ``manifest_path`` (relative paths resolve against the config file's folder) and
   ``enabled`` (default ``true``; a disabled entry is listed and otherwise ignored);
3. ``$HANGAR_HOME/localrun-providers/*/provider.json`` (what ``install`` puts there).

A plugin may never take a built-in's name, and no two enabled plugins may share a name: each
clash is a :class:`Collision` naming every manifest involved, reported by ``list`` and raised
by :meth:`Discovery.find` for the clashing name — never a silent shadow. Discovery reads only
the ``name`` of each manifest; the full validation happens when a plugin is used or listed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from hangar.errors import HangarError, NotFoundError
from hangar.localrun.plugins.manifest import MANIFEST_NAME, manifest_name
from hangar.paths import Env, hangar_paths
from hangar.settings import read_config_file

CONFIG_TABLE = "localrun_providers"
Origin = Literal["config", "installed"]


@dataclass(frozen=True)
class PluginEntry:
    """One plugin manifest found by discovery."""

    manifest_path: Path
    origin: Origin
    name: str | None
    """The name the manifest claims (``None`` when it cannot be read)."""
    enabled: bool = True
    config_key: str | None = None

    def where(self) -> str:
        if self.origin == "config":
            return f"{self.manifest_path} (config.toml {CONFIG_TABLE}.{self.config_key})"
        return f"{self.manifest_path} (installed)"


@dataclass(eq=False)
class PluginCollisionError(HangarError):
    """A plugin name is taken twice: by a built-in, or by two plugins."""

    name: str = ""
    builtin: str | None = None
    entries: tuple[PluginEntry, ...] = ()
    code: ClassVar[str] = "provider_name_collision"
    http_status: ClassVar[int] = 409

    def render(self) -> str:
        places = " and ".join(entry.where() for entry in self.entries)
        if self.builtin is not None:
            return (
                f"local-run provider name {self.name!r} belongs to the built-in provider "
                f"{self.builtin!r}; a plugin cannot take it: rename or remove {places}"
            )
        return (
            f"two local-run provider plugins are named {self.name!r}: {places}; "
            "rename or remove one of them"
        )

    def details(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "builtin": self.builtin,
            "manifests": [str(entry.manifest_path) for entry in self.entries],
        }


@dataclass(eq=False)
class PluginConfigError(HangarError):
    """A ``localrun_providers`` entry of ``config.toml`` that cannot be used."""

    path: Path = field(default_factory=Path)
    key: str = ""
    problem: str = ""
    code: ClassVar[str] = "invalid_provider_config"
    http_status: ClassVar[int] = 400

    def render(self) -> str:
        return f"{self.path}: {CONFIG_TABLE}.{self.key}: {self.problem}"


@dataclass
class Discovery:
    """Everything discovery found, in lookup order."""

    builtins: Mapping[str, str]
    """Each built-in name or executable name → the built-in provider's name."""
    entries: list[PluginEntry] = field(default_factory=list)
    collisions: list[PluginCollisionError] = field(default_factory=list)
    config_problems: list[PluginConfigError] = field(default_factory=list)

    def enabled(self) -> list[PluginEntry]:
        return [entry for entry in self.entries if entry.enabled]

    def collision_for(self, name: str) -> PluginCollisionError | None:
        return next((c for c in self.collisions if c.name == name), None)

    def find(self, name: str) -> PluginEntry:
        """The one enabled plugin named ``name``; raises on a collision or when absent."""
        collision = self.collision_for(name)
        if collision is not None:
            raise collision
        for entry in self.enabled():
            if entry.name == name:
                return entry
        raise NotFoundError(kind="local-run provider plugin", key=name)


def _config_entries(config_path: Path) -> tuple[list[PluginEntry], list[PluginConfigError]]:
    table = read_config_file(config_path).get(CONFIG_TABLE) or {}
    entries: list[PluginEntry] = []
    problems: list[PluginConfigError] = []

    def problem(key: str, text: str) -> None:
        problems.append(PluginConfigError(path=config_path, key=key, problem=text))

    if not isinstance(table, dict):
        problem("", "must be a table of [localrun_providers.<name>] entries")
        return entries, problems
    for key, raw in table.items():
        if not isinstance(raw, dict):
            problem(key, "must be a table with manifest_path and enabled")
            continue
        unknown = sorted(set(raw) - {"manifest_path", "enabled"})
        if unknown:
            problem(key, f"unknown field {unknown[0]!r} (known: manifest_path, enabled)")
            continue
        manifest = raw.get("manifest_path")
        enabled = raw.get("enabled", True)
        if not isinstance(manifest, str) or not manifest:
            problem(key, "manifest_path must be a non-empty string")
            continue
        if not isinstance(enabled, bool):
            problem(key, "enabled must be true or false")
            continue
        path = Path(manifest).expanduser()
        if not path.is_absolute():
            path = config_path.parent / path
        path = Path(os.path.normpath(path))
        if path.is_dir():
            path = path / MANIFEST_NAME
        claimed = manifest_name(path)
        if enabled and claimed is not None and claimed != key:
            problem(key, f"the manifest {path} is named {claimed!r}, not {key!r}")
            continue
        entries.append(PluginEntry(path, "config", claimed or key, enabled, key))
    return entries, problems


def _installed_entries(folder: Path) -> list[PluginEntry]:
    if not folder.is_dir():
        return []
    found = []
    for child in sorted(folder.iterdir()):
        manifest = child / MANIFEST_NAME
        if child.is_dir() and not child.name.startswith(".") and manifest.is_file():
            found.append(PluginEntry(manifest, "installed", manifest_name(manifest)))
    return found


def _collisions(
    builtins: Mapping[str, str], entries: Iterable[PluginEntry]
) -> list[PluginCollisionError]:
    by_name: dict[str, list[PluginEntry]] = {}
    for entry in entries:
        if entry.enabled and entry.name is not None:
            by_name.setdefault(entry.name, []).append(entry)
    collisions = []
    for name, claimed in by_name.items():
        if name in builtins:
            collisions.append(
                PluginCollisionError(name=name, builtin=builtins[name], entries=tuple(claimed))
            )
        elif len(claimed) > 1:
            collisions.append(PluginCollisionError(name=name, entries=tuple(claimed)))
    return collisions


def builtin_names() -> dict[str, str]:
    """Names a plugin may not take: every built-in provider's name and executable names."""
    from hangar.localrun.providers.registry import providers

    names: dict[str, str] = {}
    for provider in providers().values():
        for name in (provider.name, *provider.executables):
            names[name] = provider.name
    return names


def discover(environ: Env | None = None, builtins: Mapping[str, str] | None = None) -> Discovery:
    """Run discovery for the ``$HANGAR_HOME`` of ``environ`` (see the module docstring)."""
    paths = hangar_paths(environ)
    known = builtin_names() if builtins is None else builtins
    config_entries, problems = _config_entries(paths.config_file)
    entries = [*config_entries, *_installed_entries(paths.providers_dir)]
    return Discovery(known, entries, _collisions(known, entries), problems)
