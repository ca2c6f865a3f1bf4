"""Slash commands typed into an agent TUI (anchors §A.2 capture rules).

A bare slash command (``/clear``) is never user input and makes its turn non-commentable; one
with arguments (``/review main``) is user input marked ``command`` and ``commentable``.
"""

from __future__ import annotations

from dataclasses import dataclass

KNOWN = frozenset(
    [
        "approvals",
        "clear",
        "compact",
        "diff",
        "exit",
        "help",
        "init",
        "mcp",
        "model",
        "new",
        "plan",
        "prompts",
        "quit",
        "resume",
        "review",
        "settings",
        "status",
        "agents",
        "permissions",
        "skills",
        "memory",
        "cost",
        "context",
        "config",
        "doctor",
    ]
)


@dataclass(frozen=True)
class Slash:
    name: str
    args: str


def parse_slash(text: str) -> Slash | None:
    """The slash command in ``text``, or ``None`` when it is ordinary input."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    name, _, args = stripped[1:].partition(" ")
    if not name or "/" in name or name.lower() not in KNOWN:
        return None
    return Slash(name.lower(), args.strip())


def recorded_command(text: str) -> Slash:
    """A slash command the CLI itself recorded as one (known to hangar or not)."""
    name, _, args = text.strip().removeprefix("/").partition(" ")
    return Slash(name.lower(), args.strip())
