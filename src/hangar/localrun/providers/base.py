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
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Protocol

from hangar.errors import UsageError
from hangar.localrun.pty_runner import PtyRunner
from hangar.model.run_messages import RunMessage, UsageEntry


class MessageSink(Protocol):
    def report(self, message: RunMessage) -> None: ...


class UsageSink(Protocol):
    def add(self, delta: UsageEntry) -> None: ...


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

    def __init__(self, runner: PtyRunner, issue: IssueContext) -> None:
        self.runner = runner
        self.issue = issue
        self.outcome = ProviderOutcome()

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
