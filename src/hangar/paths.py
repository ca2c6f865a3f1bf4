"""Where hangar keeps its state and where each agent keeps its own.

Everything hangar writes lives under ``$HANGAR_HOME``. Agent homes honour each agent's own
override variable, then ``HOME``. All functions take an optional environment mapping so a
caller (or a test) can resolve paths for an environment other than the current process's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

Env = Mapping[str, str]


def _env(environ: Env | None) -> Env:
    return os.environ if environ is None else environ


def user_home(environ: Env | None = None) -> Path:
    """The user's home directory as the environment says (``HOME`` first)."""
    env = _env(environ)
    home = env.get("HOME")
    return Path(home) if home else Path.home()


def hangar_home(environ: Env | None = None) -> Path:
    """``$HANGAR_HOME``, else the platform's user data dir for ``hangar``."""
    env = _env(environ)
    explicit = env.get("HANGAR_HOME")
    if explicit:
        return Path(explicit).expanduser()
    if environ is not None and "XDG_DATA_HOME" in env:
        return Path(env["XDG_DATA_HOME"]) / "hangar"
    if environ is not None:
        return user_home(env) / ".local" / "share" / "hangar"
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
    def config_file(self) -> Path:
        return self.home / "config.toml"

    @property
    def providers_dir(self) -> Path:
        return self.home / "localrun-providers"

    @property
    def spool_dir(self) -> Path:
        return self.home / "local-run-spool"

    @property
    def trash_dir(self) -> Path:
        return self.home / "trash"

    @property
    def logs_dir(self) -> Path:
        return self.home / "logs"

    def as_json(self) -> dict[str, str]:
        return {
            "home": str(self.home),
            "hubDb": str(self.hub_db),
            "executorDb": str(self.executor_db),
            "deviceFile": str(self.device_file),
            "tokenFile": str(self.token_file),
            "configFile": str(self.config_file),
            "providersDir": str(self.providers_dir),
            "spoolDir": str(self.spool_dir),
            "trashDir": str(self.trash_dir),
            "logsDir": str(self.logs_dir),
        }


def hangar_paths(environ: Env | None = None) -> HangarPaths:
    return HangarPaths(hangar_home(environ))


@dataclass(frozen=True)
class AgentHome:
    """Where one agent CLI keeps its sessions, and which variable moved it there."""

    agent: str
    root: Path
    override: str | None
    """The environment variable that set ``root``, or ``None`` when it is the default."""
    extra: tuple[tuple[str, Path], ...] = ()
    """Other named locations of the same agent (e.g. OpenCode's config dir)."""

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {"root": str(self.root), "override": self.override}
        for name, path in self.extra:
            out[name] = str(path)
        return out


def _from_var(env: Env, var: str, default: Path) -> tuple[Path, str | None]:
    value = env.get(var)
    if value:
        return Path(value).expanduser(), var
    return default, None


def _xdg(env: Env, var: str, fallback: tuple[str, ...]) -> tuple[Path, str | None]:
    return _from_var(env, var, user_home(env).joinpath(*fallback))


def agent_homes(environ: Env | None = None) -> dict[str, AgentHome]:
    """The home of every built-in agent, with its own override variables applied."""
    env = _env(environ)
    home = user_home(env)
    homes: dict[str, AgentHome] = {}

    root, var = _from_var(env, "CODEX_HOME", home / ".codex")
    homes["codex"] = AgentHome("codex", root, var)

    root, var = _from_var(env, "CLAUDE_CONFIG_DIR", home / ".claude")
    homes["claude"] = AgentHome("claude", root, var)

    data, data_var = _xdg(env, "XDG_DATA_HOME", (".local", "share"))
    config, _ = _xdg(env, "XDG_CONFIG_HOME", (".config",))
    homes["opencode"] = AgentHome(
        "opencode", data / "opencode", data_var, (("config", config / "opencode"),)
    )

    root, var = _from_var(env, "CONTINUE_GLOBAL_DIR", home / ".continue")
    homes["continue"] = AgentHome("continue", root, var)

    gemini_base, var = _from_var(env, "GEMINI_CLI_HOME", home)
    homes["gemini"] = AgentHome("gemini", gemini_base / ".gemini", var)

    root, var = _from_var(env, "COPILOT_HOME", home / ".copilot")
    homes["copilot"] = AgentHome("copilot", root, var)

    root, var = _from_var(env, "CURSOR_CONFIG_DIR", home / ".cursor")
    homes["cursor"] = AgentHome("cursor", root, var)

    root, var = _from_var(env, "QWEN_HOME", home / ".qwen")
    homes["qwen"] = AgentHome("qwen", root, var)

    root, var = _from_var(env, "KIRO_HOME", home / ".kiro")
    homes["kiro"] = AgentHome("kiro", root, var, (("legacyData", data / "kiro-cli"),))
    return homes
