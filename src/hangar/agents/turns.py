"""Continuing a session: what a control facet needs to run one turn and what it reports.

The executor asks an agent's control facet (:mod:`hangar.agents.control`) to run a turn with a
:class:`TurnRequest` — the user's text, the files already on this device, the model chosen for
*this* turn (never a remembered one, RW-120) and the task's directory as context only — and an
:class:`TurnObserver`. The control calls the observer from its own threads as the agent works:
first :meth:`TurnObserver.started` with the turn's id, then text and reasoning deltas, tool
activity, compaction, approval requests (each with a way to answer it), and exactly one
:meth:`TurnObserver.finished` per turn it started. Nothing here
carries a path to the UI: the executor decides what it streams.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

TurnStatus = Literal["completed", "failed", "interrupted"]
ApprovalDecision = Literal["approve", "approve_for_session", "deny"]
APPROVAL_DECISIONS: tuple[ApprovalDecision, ...] = ("approve", "approve_for_session", "deny")
GuidanceOutcome = Literal["accepted", "no_active_turn"]


@dataclass(frozen=True)
class ModelOption:
    """One model an agent offers for a turn."""

    id: str
    display_name: str
    model_type: str
    """Who serves it: the agent (``codex``, ``claude``) or, for OpenCode, the provider id."""
    is_default: bool = False
    efforts: tuple[str, ...] = ()
    """Reasoning efforts the model accepts (``options.effort``), when the agent says."""


@dataclass(frozen=True)
class ModelChoice:
    """The model selection of one turn, exactly as the user picked it (RW-119)."""

    model_id: str
    model_type: str | None = None
    options: Mapping[str, str] = field(default_factory=dict)

    @property
    def effort(self) -> str | None:
        return self.options.get("effort")


@dataclass(frozen=True)
class InputFile:
    """A file handed to the agent with the turn, already on this device."""

    name: str
    path: Path
    mime_type: str

    @property
    def is_image(self) -> bool:
        return self.mime_type.startswith("image/")


@dataclass(frozen=True)
class TurnRequest:
    text: str
    model: ModelChoice
    files: tuple[InputFile, ...] = ()
    client_user_message_id: str | None = None
    cwd: Path | None = None
    """The task's directory: where a CLI that keys sessions by directory must run."""


@dataclass(frozen=True)
class ApprovalRequest:
    """The agent asks before it acts (a command, a file change, a tool)."""

    approval_id: str
    kind: Literal["command", "file_change", "tool", "permissions"]
    title: str
    """What it wants to do, in a few words (``Run a command``, the tool's name)."""
    detail: str
    """The command line, the files, or the tool input, as the agent states it."""
    reason: str | None = None
    decisions: tuple[ApprovalDecision, ...] = APPROVAL_DECISIONS


Answer = Callable[[ApprovalDecision], None]


class TurnObserver(Protocol):
    """What a control reports about one running turn (called from the control's threads, in
    the order the agent produced it)."""

    def started(self, subtask_id: str) -> None:
        """The agent began the turn; called once, before any other event."""
        ...

    def text_delta(self, item_id: str, delta: str) -> None: ...

    def reasoning_delta(self, item_id: str, delta: str) -> None: ...

    def tool(self, tool_use_id: str, name: str, status: str, summary: str) -> None:
        """A tool call started (``running``) or ended (``done`` / ``failed``)."""
        ...

    def compaction(self, status: Literal["running", "done"]) -> None: ...

    def approval(self, request: ApprovalRequest, answer: Answer) -> None:
        """The agent waits for ``answer``; it is called at most once, from any thread."""
        ...

    def approval_closed(self, approval_id: str) -> None:
        """A request the agent no longer waits for (answered elsewhere, or the turn ended)."""
        ...

    def finished(self, status: TurnStatus, error: str | None = None) -> None:
        """The turn ended; called exactly once."""
        ...


@dataclass(frozen=True)
class StartedTurn:
    """A turn the agent accepted: ``subtask_id`` is the turn's id in the agent's transcript."""

    subtask_id: str
