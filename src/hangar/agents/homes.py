"""Where an agent CLI keeps its sessions, and the variables that move it.

A :class:`HomeSpec` is a declaration (``$CODEX_HOME``, else ``$HOME/.codex``); resolving it
against an environment gives an :class:`AgentHome`. Every agent record in the registry names
its homes this way, so ``hangar paths``, the executor and the tests' isolation read one table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hangar.paths import Env, environment, user_home


@dataclass(frozen=True)
class HomeSpec:
    """One location: ``$variable`` (when set) or ``$HOME/<default…>``, then ``/<under…>``.

    ``variable`` may be ``None`` for a location with no override of its own.
    """

    variable: str | None
    default: tuple[str, ...]
    under: tuple[str, ...] = ()

    def resolve(self, environ: Env | None = None) -> tuple[Path, str | None]:
        env = environment(environ)
        value = env.get(self.variable) if self.variable else None
        if value:
            base, used = Path(value).expanduser(), self.variable
        else:
            base, used = user_home(env).joinpath(*self.default), None
        return base.joinpath(*self.under), used


XDG_DATA = HomeSpec("XDG_DATA_HOME", (".local", "share"))
XDG_CONFIG = HomeSpec("XDG_CONFIG_HOME", (".config",))


def xdg_data(*under: str) -> HomeSpec:
    return HomeSpec(XDG_DATA.variable, XDG_DATA.default, under)


def xdg_config(*under: str) -> HomeSpec:
    return HomeSpec(XDG_CONFIG.variable, XDG_CONFIG.default, under)


@dataclass(frozen=True)
class AgentHome:
    """Where one agent CLI keeps its sessions, and which variable moved it there."""

    agent: str
    root: Path
    override: str | None
    """The environment variable that set ``root``, or ``None`` when it is the default."""
    extra: tuple[tuple[str, Path], ...] = ()
    """Other named locations of the same agent (e.g. OpenCode's config dir)."""

    def location(self, name: str) -> Path | None:
        """The extra location called ``name``, if the agent has one."""
        return next((path for key, path in self.extra if key == name), None)

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {"root": str(self.root), "override": self.override}
        for name, path in self.extra:
            out[name] = str(path)
        return out
