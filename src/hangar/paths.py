"""Where hangar keeps its state.

Everything hangar writes lives under ``$HANGAR_HOME``. Agent homes are declared by each agent's
record in :mod:`hangar.agents.registry` (with that agent's own override variable). All
functions take an optional environment mapping so a caller (or a test) can resolve paths for an
environment other than the current process's.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

Env = Mapping[str, str]


def environment(environ: Env | None = None) -> Env:
    """``environ``, or the process environment when it is ``None``."""
    return os.environ if environ is None else environ


def user_home(environ: Env | None = None) -> Path:
    """The user's home directory as the environment says (``HOME`` first)."""
    env = environment(environ)
    home = env.get("HOME")
    return Path(home) if home else Path.home()


def hangar_home(environ: Env | None = None) -> Path:
    """``$HANGAR_HOME``, else the platform's user data dir for ``hangar``."""
    env = environment(environ)
    explicit = env.get("HANGAR_HOME")
    if explicit:
        return Path(explicit).expanduser()
    if environ is not None and "XDG_DATA_HOME" in env:
        return Path(env["XDG_DATA_HOME"]) / "hangar"
    if environ is not None:
        return user_home(env) / ".local" / "share" / "hangar"
    if sys.platform.startswith("linux"):
        # platformdirs' own answer on Linux, without importing it (and its tempfile and
        # random) on every command: an XDG data home that is set and absolute, else
        # ~/.local/share.
        xdg = env.get("XDG_DATA_HOME", "").strip()
        base = Path(xdg) if xdg and Path(xdg).is_absolute() else user_home(env) / ".local" / "share"
        return base / "hangar"
    import platformdirs

    return platformdirs.user_data_path("hangar", appauthor=False)


@dataclass(frozen=True)
class HangarPaths:
    """Every file location inside ``$HANGAR_HOME``."""

    home: Path

    @property
    def hub_db(self) -> Path:
        return self.home / "hub.db"

    @property
    def executor_db(self) -> Path:
        return self.home / "executor.db"

    @property
    def device_file(self) -> Path:
        return self.home / "device.json"

    @property
    def token_file(self) -> Path:
        return self.home / "token"

    @property
    def device_token_file(self) -> Path:
        """The device token ``hangar executor`` presents to its hub (0600)."""
        return self.home / "device-token"

    @property
    def config_file(self) -> Path:
        return self.home / "config.toml"

    @property
    def providers_dir(self) -> Path:
        return self.home / "localrun-providers"

    @property
    def spool_dir(self) -> Path:
        return self.home / "local-run-spool"

    @property
    def discussion_spool_dir(self) -> Path:
        return self.home / "discussion-spool"

    @property
    def trash_dir(self) -> Path:
        return self.home / "trash"

    @property
    def logs_dir(self) -> Path:
        return self.home / "logs"

    @property
    def attachments_dir(self) -> Path:
        """Files uploaded for a continued task (the hub's ``AttachmentStore``)."""
        return self.home / "attachments"

    @property
    def turn_inputs_dir(self) -> Path:
        """Uploaded files the executor fetched to hand to an agent with a turn."""
        return self.home / "turn-inputs"

    @property
    def worktrees_file(self) -> Path:
        """This device's worktree settings and records (``docs/worktrees.md``)."""
        return self.home / "runtime-work" / "worktrees.json"

    def as_json(self) -> dict[str, str]:
        return {
            "home": str(self.home),
            "hubDb": str(self.hub_db),
            "executorDb": str(self.executor_db),
            "deviceFile": str(self.device_file),
            "tokenFile": str(self.token_file),
            "deviceTokenFile": str(self.device_token_file),
            "configFile": str(self.config_file),
            "providersDir": str(self.providers_dir),
            "spoolDir": str(self.spool_dir),
            "discussionSpoolDir": str(self.discussion_spool_dir),
            "trashDir": str(self.trash_dir),
            "logsDir": str(self.logs_dir),
            "attachmentsDir": str(self.attachments_dir),
            "turnInputsDir": str(self.turn_inputs_dir),
            "worktreesFile": str(self.worktrees_file),
        }


def hangar_paths(environ: Env | None = None) -> HangarPaths:
    return HangarPaths(hangar_home(environ))
