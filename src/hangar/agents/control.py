"""The control facet: acting on an agent's sessions through the agent's own interface.

hangar never edits an agent's store by hand. Where an agent offers a way to rename, archive or
delete a session (Codex's app-server), its :class:`AgentControl` uses it and says what happened
in a :class:`ControlResult`; the executor records that in its LocalTask index. Where it does
not, the facet answers ``unsupported`` (the default of every method) and the executor keeps the
change in its own index instead (an override every list applies).

A control is opened for a batch of operations and closed after it (:meth:`AgentControl.close`
ends any process it started). It receives the agent's resolved home and the device's
:class:`~hangar.agents.launch.AgentLauncher`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from hangar.agents.homes import AgentHome
from hangar.agents.launch import AgentLauncher

Outcome = Literal["done", "missing", "unavailable", "unsupported"]
"""``done``: the agent did it. ``missing``: the agent knows the session but its files are gone
(a stale record; the executor hides it). ``unavailable``: the agent CLI is not installed or not
running. ``unsupported``: this agent (or its version) has no such operation."""

Handle = Mapping[str, str]
"""A task's opaque runtime handle (``{"threadId": …}``, ``{"sessionId": …}``, ``{"path": …}``)."""


@dataclass(frozen=True)
class ControlResult:
    outcome: Outcome
    via: str | None = None
    """How it was done, reported to the client (``codex-app-server``, ``codex-session-index``)."""
    moved_to: Path | None = None
    """Where the session's file lives now, when the agent moved it (archive, unarchive)."""
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return self.outcome == "done"


UNSUPPORTED = ControlResult("unsupported")


class AgentControl:
    """Operations on one agent's sessions; every method defaults to ``unsupported``."""

    runtime: ClassVar[str]
    keeps_archive_state: ClassVar[bool] = False
    """Whether an archive done by the agent is kept by the agent itself (then the executor
    stores no override that could later hide a change made in the agent)."""

    def __init__(self, home: AgentHome, launcher: AgentLauncher) -> None:
        self.home = home
        self.launcher = launcher

    def rename(self, handle: Handle, title: str) -> ControlResult:
        return UNSUPPORTED

    def archive(self, handle: Handle, source_path: Path | None) -> ControlResult:
        return UNSUPPORTED

    def unarchive(self, handle: Handle, source_path: Path | None) -> ControlResult:
        return UNSUPPORTED

    def can_delete(self, handle: Handle) -> bool:
        """Whether :meth:`delete` can delete this session now (checked before the executor
        copies its files into the trash)."""
        return False

    def delete(self, handle: Handle) -> ControlResult:
        """Delete the session through the agent (its files included). The executor has
        already copied those files into its trash, so the delete stays restorable."""
        return UNSUPPORTED

    def close(self) -> None:
        """End whatever this control started."""

    def __enter__(self) -> AgentControl:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
