"""The control facet: acting on an agent's sessions through the agent's own interface.

hangar never edits an agent's store by hand. Where an agent offers a way to rename, archive or
delete a session (Codex's app-server), its :class:`AgentControl` uses it and says what happened
in a :class:`ControlResult`; the executor records that in its LocalTask index. Where it does
not, the facet answers ``unsupported`` (the default of every method) and the executor keeps the
change in its own index instead (an override every list applies).

Continuing a session — :meth:`~AgentControl.send`, :meth:`~AgentControl.cancel`,
:meth:`~AgentControl.guidance`, :meth:`~AgentControl.compact`, :meth:`~AgentControl.goal`,
:meth:`~AgentControl.models`, :meth:`~AgentControl.create` — uses the types of
:mod:`hangar.agents.turns`. :attr:`AgentControl.operations` names what a control implements;
every other one raises :class:`ControlUnsupported` (HTTP 501 ``not_supported``, naming the
agent and the operation).

The executor keeps one control per agent for its lifetime (a resident ``codex app-server``,
``opencode serve``) and closes it when it stops (:meth:`AgentControl.close` ends every process
the control started). A control receives the agent's resolved home, the device's
:class:`~hangar.agents.launch.AgentLauncher` and the executor's settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from hangar.agents.homes import AgentHome
from hangar.agents.launch import AgentLauncher
from hangar.agents.turns import (
    GuidanceOutcome,
    ModelOption,
    StartedTurn,
    TurnObserver,
    TurnRequest,
)
from hangar.errors import HangarError

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


@dataclass(frozen=True)
class ForkedSession:
    """What :meth:`AgentControl.fork` made: the new session's handle and, where the agent
    names it, its file."""

    handle: dict[str, str]
    path: Path | None = None


Operation = Literal["send", "cancel", "guidance", "compact", "goal", "models", "create", "fork"]
OPERATIONS: tuple[Operation, ...] = (
    "send",
    "cancel",
    "guidance",
    "compact",
    "goal",
    "models",
    "create",
    "fork",
)


@dataclass(eq=False)
class ControlUnsupported(HangarError):
    """This agent cannot do ``operation`` through hangar (HTTP 501)."""

    runtime: str = ""
    operation: str = ""
    code: ClassVar[str] = "not_supported"
    http_status: ClassVar[int] = 501

    def render(self) -> str:
        return self.message or (
            f"{self.runtime}: {self.operation} is not supported for this agent "
            "(docs/agents.md lists what each agent supports)"
        )

    def details(self) -> dict[str, Any]:
        return {"runtime": self.runtime, "operation": self.operation}


class AgentControl:
    """Operations on one agent's sessions; every method defaults to ``unsupported``."""

    runtime: ClassVar[str]
    keeps_archive_state: ClassVar[bool] = False
    """Whether an archive done by the agent is kept by the agent itself (then the executor
    stores no override that could later hide a change made in the agent)."""
    operations: ClassVar[frozenset[Operation]] = frozenset()
    """The turn operations this control implements (the others raise
    :class:`ControlUnsupported`)."""

    def __init__(
        self,
        home: AgentHome,
        launcher: AgentLauncher,
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        self.home = home
        self.launcher = launcher
        self.settings: Mapping[str, Any] = settings or {}

    def unsupported(self, operation: Operation) -> ControlUnsupported:
        return ControlUnsupported(runtime=self.runtime, operation=operation)

    # -- continuing a session (see hangar.agents.turns) --------------------------------------
    def models(self) -> list[ModelOption]:
        """The models the agent offers for a turn, as it lists them now."""
        raise self.unsupported("models")

    def send(self, handle: Handle, request: TurnRequest, observer: TurnObserver) -> StartedTurn:
        """Start a turn on the session ``handle`` names; returns once the agent accepted it.
        Everything after that reaches ``observer``, ending with one ``finished``."""
        raise self.unsupported("send")

    def create(
        self, cwd: Path, request: TurnRequest, observer: TurnObserver
    ) -> tuple[dict[str, str], StartedTurn]:
        """Start a new session in ``cwd`` with a first turn; returns its handle."""
        raise self.unsupported("create")

    def fork(
        self, handle: Handle, last_turn_id: str, cwd: Path | None, title: str | None = None
    ) -> ForkedSession:
        """A new session holding the history of ``handle`` through the completed turn
        ``last_turn_id`` (inclusive), made by the agent itself; ``cwd`` is where the new
        session works (``None``: the source's directory); ``title`` names it where the agent
        names a fork as it makes it (Claude; others are renamed after). Never stops, cancels
        or changes a turn the source is running."""
        raise self.unsupported("fork")

    def session_files(self, handle: Handle, source_path: Path | None) -> dict[str, Path]:
        """The files the session stands on (its own and those it refers to), by their path
        relative to the agent's home: what a fork on another device needs."""
        raise self.unsupported("fork")

    def import_session_files(self, files: Mapping[str, bytes]) -> list[Handle]:
        """Place another device's session files (from :meth:`session_files`) where the agent
        finds them, verbatim; returns the handles of the sessions new here."""
        raise self.unsupported("fork")

    def find_created(self, cwd: Path, title: str, since: float) -> list[Handle] | None:
        """Sessions the agent started in ``cwd`` at or after ``since`` (Unix seconds) whose
        first message begins with the line ``title``, oldest first, as the agent lists them
        itself: how a created task whose link was never written (the executor stopped between
        the agent naming the session and the index write) finds its session again. Empty: none
        (or this agent cannot tell)."""
        return []

    def session_file(self, handle: Handle) -> Path | None:
        """The session's transcript file as the agent's own metadata names it (``None``:
        not known, or this agent cannot tell)."""
        return None

    def cancel(self, handle: Handle) -> bool:
        """Interrupt the session's running turn; ``False`` when this control cannot (no turn
        it runs, RW-128)."""
        raise self.unsupported("cancel")

    def guidance(self, handle: Handle, text: str, client_guidance_id: str) -> GuidanceOutcome:
        """Add ``text`` to the running turn through the agent's native guidance."""
        raise self.unsupported("guidance")

    def compact(self, handle: Handle, observer: TurnObserver, cwd: Path | None) -> StartedTurn:
        """Compact the session's context through the agent's own compaction."""
        raise self.unsupported("compact")

    def goal(self, handle: Handle) -> dict[str, Any] | None:
        """The session's goal as the agent keeps it (``None``: no goal set)."""
        raise self.unsupported("goal")

    def configure(self, environment: Mapping[str, str]) -> None:
        """Process-level settings of the agent's resident process (e.g. a proxy): a change
        restarts it on next use (RW-084..088). Controls without one ignore it."""

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
