"""Installing and removing provider plugins under ``$HANGAR_HOME/localrun-providers/`` (LR-131,
LR-133, LR-193).

:func:`install_plugin` validates the folder's manifest, refuses a name a built-in or another
plugin already has (``replace=True`` swaps an installed plugin of the same name), then copies
the folder: file modes are kept (the adapter keeps its run bit), a symlink that points inside
the folder is copied as what it points to, and a symlink that leads outside it, a special file
or a ``.git`` folder is refused or skipped. The copy is built beside the target and renamed
into place, and the copied manifest is validated again, so a half-copied plugin is never
visible. :func:`remove_plugin` moves the folder to ``$HANGAR_HOME/trash/localrun-providers/``
(recoverable, like every delete in hangar); a plugin referenced from ``config.toml`` is not
removed (hangar never rewrites that file).
"""

from __future__ import annotations

import shutil
import stat
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from hangar.errors import HangarError, NotFoundError, UsageError
from hangar.localrun.plugins.discovery import (
    CONFIG_TABLE,
    PluginCollisionError,
    PluginEntry,
    discover,
)
from hangar.localrun.plugins.manifest import MANIFEST_NAME, PluginManifest, load_manifest
from hangar.paths import Env, hangar_paths

SKIPPED_NAMES = frozenset({".git"})


@dataclass(eq=False)
class PluginInstallError(HangarError):
    """A plugin folder that cannot be copied as it is."""

    path: Path = field(default_factory=Path)
    problem: str = ""
    code: ClassVar[str] = "provider_install_failed"
    http_status: ClassVar[int] = 400

    def render(self) -> str:
        return f"{self.path}: {self.problem}"


def _copy_tree(source: Path, target: Path, root: Path) -> None:
    """Copy ``source`` (a folder inside ``root``) to ``target``, dereferencing inner links."""
    target.mkdir(mode=0o755)
    for child in sorted(source.iterdir()):
        if child.name in SKIPPED_NAMES:
            continue
        destination = target / child.name
        if child.is_symlink():
            try:
                resolved = child.resolve(strict=True)
            except (OSError, RuntimeError):
                raise PluginInstallError(path=child, problem="broken or looping symlink") from None
            if not resolved.is_relative_to(root):
                raise PluginInstallError(
                    path=child, problem=f"symlink leads outside the plugin folder (to {resolved})"
                )
            real = resolved
        else:
            real = child
        info = real.stat()
        if stat.S_ISDIR(info.st_mode):
            _copy_tree(real, destination, root)
        elif stat.S_ISREG(info.st_mode):
            shutil.copy2(real, destination)  # copy2 keeps the mode: the run bit survives
        else:
            raise PluginInstallError(path=child, problem="not a regular file or folder")


def _trash_dir(environ: Env | None) -> Path:
    folder = hangar_paths(environ).trash_dir / "localrun-providers"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _to_trash(folder: Path, name: str, environ: Env | None) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%S")
    destination = _trash_dir(environ) / f"{name}-{stamp}-{uuid.uuid4().hex[:6]}"
    folder.replace(destination)
    return destination


def install_plugin(
    source: Path, *, replace: bool = False, environ: Env | None = None
) -> PluginManifest:
    """Install the plugin in folder ``source``; returns the installed copy's manifest."""
    source = source.absolute()
    if not source.is_dir():
        raise UsageError(f"{source} is not a folder (give the folder holding {MANIFEST_NAME})")
    manifest = load_manifest(source / MANIFEST_NAME)
    providers_dir = hangar_paths(environ).providers_dir
    target = providers_dir / manifest.name
    if source.resolve() == target.resolve():
        raise UsageError(f"{source} is already the installed copy of {manifest.name!r}")
    found = discover(environ)
    if manifest.name in found.builtins:
        raise PluginCollisionError(
            name=manifest.name,
            builtin=found.builtins[manifest.name],
            entries=(found_entry(manifest),),
        )
    for entry in found.enabled():
        if entry.name != manifest.name:
            continue
        if entry.origin == "config":
            raise PluginCollisionError(name=manifest.name, entries=(entry, found_entry(manifest)))
        if not replace:
            raise UsageError(
                f"a plugin named {manifest.name!r} is already installed at {entry.manifest_path}; "
                "pass --replace to install this one instead (the old one goes to the trash)"
            )
    providers_dir.mkdir(parents=True, exist_ok=True)
    staging = providers_dir / f".install-{manifest.name}-{uuid.uuid4().hex[:8]}"
    try:
        _copy_tree(source, staging, source.resolve())
        load_manifest(staging / MANIFEST_NAME)
        if target.exists():
            _to_trash(target, manifest.name, environ)
        staging.replace(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return load_manifest(target / MANIFEST_NAME)


def found_entry(manifest: PluginManifest) -> PluginEntry:
    """A discovery entry for a manifest about to be installed (for collision messages)."""
    return PluginEntry(manifest.path, "installed", manifest.name)


def remove_plugin(name: str, environ: Env | None = None) -> Path:
    """Move the installed plugin ``name`` to the trash; returns where it went."""
    found = discover(environ)
    installed = [e for e in found.entries if e.name == name and e.origin == "installed"]
    configured = [e for e in found.entries if e.name == name and e.origin == "config"]
    if not installed:
        if configured:
            raise UsageError(
                f"{name!r} comes from config.toml ({configured[0].where()}); remove its "
                f"[{CONFIG_TABLE}.{configured[0].config_key}] table to drop it"
            )
        raise NotFoundError(kind="installed local-run provider plugin", key=name)
    return _to_trash(installed[0].manifest_path.parent, name, environ)
