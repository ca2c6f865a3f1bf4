"""The provider contract (LR-121..LR-129).

A provider owns one agent CLI's event source and its mapping to run messages. It receives:

- ``args``: the command after ``--`` exactly as the user typed it (``args[0]`` is never
  rewritten, LR-123);
- ``cwd``: the run's working directory, used for the child, hook servers and transcript
  lookups alike (LR-124);
- ``env``: the environment built by :func:`hangar.localrun.environment.build_child_env`
  (LR-125); sidecars get the same one;
- ``reporter`` and ``usage_reporter``: the only way to write run messages and usage (LR-127);
  a provider never calls the HTTP API (LR-128).

It returns the CLI's exit code. It may use the shared PTY runner (``self.runner``) and manage
its own sidecars (LR-129). :meth:`Provider.validate` refuses flags hangar must own (LR-186)
before any run is created.

A provider that can take part in a discussion (``hangar discuss``, before any issue exists)
sets :attr:`Provider.supports_discussion` and implements :meth:`Provider.discuss`: the same
CLI and tracker, with only ``HANGAR_LOCALRUN_SESSION_ID`` in ``env`` (no run or issue
variables, LR-126), its events going to ``hooks.sink`` (the discussion first, the run once
one is bound), the session id it learns going to ``hooks.session_started`` and its own
implement-plan action to ``hooks.native_handoff`` — which blocks while hangar shows the card
and binds the issue and run; meanwhile the provider holds its CLI (LR-226) and afterwards
lets the same process and session go on (LR-227), or ends it when the user cancelled. A
provider whose action names its plan by the key of an earlier event (a plugin's
``handoff_ready``) finds it with ``hooks.saved_plan`` and, once bound, the ids with
``hooks.binding``.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Literal, Protocol

from hangar.errors import UsageError
from hangar.localrun.pty_runner import ChildCommand, PtyRunner
from hangar.model.run_messages import RunMessage, UsageEntry


class MessageSink(Protocol):
    def report(self, message: RunMessage) -> None: ...


class UsageSink(Protocol):
    def add(self, delta: UsageEntry) -> None: ...


class EventSink(MessageSink, UsageSink, Protocol):
    """Where a tracker sends messages and usage (both reporters, or a discussion)."""


@dataclass(frozen=True)
class PlanHandoff:
    """A CLI's own implement-plan action: the plan it approved, from its structured events."""

    plan: str
    source: str
    source_key: str
    context: Literal["current", "clear"] = "current"
    """``current``: go on in this context; ``clear``: the CLI starts a fresh one with the plan."""


@dataclass(frozen=True)
class RunBinding:
    """The issue and the run a discussion was bound to (ids only, never the plan)."""

    issue_id: str
    issue_key: str
    run_id: str


class HandoffResult(enum.Enum):
    BOUND = "bound"
    """The issue and the run exist; let the CLI go on with the same session."""
    CANCELLED = "cancelled"
    """The user cancelled the card: block the action; hangar ends the CLI."""


class DiscussionHooks(Protocol):
    """What a provider may tell a discussion, and ask of it."""

    @property
    def sink(self) -> EventSink:
        """The target of the provider's tracker (switched to the run once one is bound)."""
        ...

    def session_started(self, provider_session_id: str) -> None:
        """The CLI's session id, once the provider has it from a verifiable source."""
        ...

    def plan_proposed(self, plan: str, source: str, source_key: str) -> None:
        """The CLI proposed a plan (saved as the discussion's plan; no card)."""
        ...

    def native_handoff(self, handoff: PlanHandoff) -> HandoffResult:
        """The CLI's own implement-plan action: blocks during the card and the binding."""
        ...

    def end_provider(self) -> None:
        """End the CLI now (after a cancelled handoff); its exit is not an error."""
        ...

    def saved_plan(self, source_key: str | None) -> PlanHandoff | None:
        """The plan a handoff names by the source key of the event that held it: the kept
        answer or proposed plan stored under ``source_key`` (``None``: the current plan, the
        last proposed plan else the last answer); ``None`` when nothing is saved under it."""
        ...

    @property
    def binding(self) -> RunBinding | None:
        """The issue and run once the discussion is bound to them (after a handoff)."""
        ...


@dataclass(frozen=True)
class IssueContext:
    """What a provider may tell the agent about the issue it works on."""

    key: str
    title: str
    hangar_command: str = "hangar"

    def prompt(self) -> str:
        """The context appended to the agent's instructions (never to a user message)."""
        return (
            f"You are working on hangar issue {self.key} ({self.title}). "
            f"Read it only when asked, with `{self.hangar_command} issue show {self.key}` "
            "(read-only; it prints the issue with its comments)."
        )


@dataclass
class ProviderOutcome:
    """What a provider learned that the run's final status needs."""

    active_ms: int | None = None
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    """Lines the user should read after the run (printed on stderr by ``hangar run``)."""


class Provider(ABC):
    """One agent CLI's live facet."""

    name: ClassVar[str]
    executables: ClassVar[tuple[str, ...]]
    """Executable basenames (``basename(args[0])`` without ``.exe``) this provider runs."""
    owned_flags: ClassVar[tuple[str, ...]] = ()
    """Flags (or subcommands) hangar sets itself; a user value for them is refused."""
    reporter_backpressure: ClassVar[bool] = False
    """True when the provider's event source can wait (e.g. a pipe): a full reporter queue
    then holds ``report`` back instead of spooling, which keeps a flood in order."""
    supports_discussion: ClassVar[bool] = False
    """True when :meth:`discuss` is implemented (``hangar discuss`` refuses the others)."""

    @classmethod
    def discussion_refusal(cls, executable: str) -> str:
        """Why ``hangar discuss`` refuses this provider (when it does not support discussions)."""
        return (
            f"`{executable}` cannot be used with `hangar discuss` yet: its provider has no "
            "discussion mode (use `hangar run ISSUE -- …` once the issue exists)"
        )

    def __init__(self, runner: PtyRunner, issue: IssueContext) -> None:
        self.runner = runner
        self.issue = issue
        self.outcome = ProviderOutcome()

    def startup_command(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str]
    ) -> ChildCommand:
        """What must be startable before the run is created (the preflight): the CLI itself,
        unless the provider starts something else (a plugin: its adapter)."""
        return ChildCommand(args, cwd, env)

    def validate(self, args: Sequence[str]) -> None:
        """Refuse the flags hangar must own, with a message saying why (LR-186)."""
        for arg in args[1:]:
            flag = arg.split("=", 1)[0]
            if flag in self.owned_flags:
                raise UsageError(
                    f"`{flag}` cannot be used with `hangar run -- {self.name}`: hangar sets it "
                    f"itself to follow the session (flags hangar owns: "
                    f"{', '.join(self.owned_flags)})"
                )

    @abstractmethod
    def run(
        self,
        args: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        reporter: MessageSink,
        usage_reporter: UsageSink,
    ) -> int:
        """Run the CLI to its end; report what it does; return its exit code."""

    # -- discussions (``hangar discuss``) ----------------------------------------------------
    @classmethod
    def resume_session_id(
        cls, args: Sequence[str], cwd: Path, env: Mapping[str, str]
    ) -> str | None:
        """The CLI session ``args`` resume, when they name one (how a discussion is found
        again, LR-119); ``None`` for a new session or one the CLI picks itself."""
        return None

    @classmethod
    def resume_command(cls, args: Sequence[str], session_id: str) -> str | None:
        """The command that resumes ``session_id`` (told to the user at exit), or ``None``
        when the CLI has no resume."""
        return None

    def discuss(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], hooks: DiscussionHooks
    ) -> int:
        """Run the CLI for a discussion (see the module docstring); returns its exit code."""
        raise UsageError(f"`{self.name}` cannot take part in a discussion yet")
