"""Providers for CLIs whose only structured source is their own session file (LR-172, LR-225).

Cursor agent, Kiro CLI and Antigravity CLI have no hook and no event stream hangar can use,
so their providers follow the session file the CLI writes — the one named by an explicit
session id or location the provider learns at start, never "the newest file in a folder"
(LR-172, LR-181). A :class:`SessionReader` turns what the file gained into :class:`Seen`
items: run messages, plans the CLI proposed, and its implement-plan action.

:class:`FollowedProvider` runs the CLI in the user's terminal, polls the reader on a thread,
reports the messages, and in a discussion (LR-221..LR-230):

- a proposed plan becomes the discussion's plan (``plan_proposed``);
- the implement-plan action stops the CLI's process group (SIGSTOP) — the CLI must not start
  implementing while hangar shows the card and binds the issue and run (LR-226) — then hands
  the plan to :meth:`~hangar.localrun.providers.base.DiscussionHooks.native_handoff`; bound,
  the same process and session are continued (SIGCONT, LR-227); cancelled, hangar ends it
  (its exit code from that signal is not an error, LR-228).

Nothing is read from the screen (LR-229) and nothing is sent to the CLI but the mode it is
started in (LR-230).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hangar.localrun.providers.base import (
    DiscussionHooks,
    EventSink,
    HandoffResult,
    MessageSink,
    PlanHandoff,
    Provider,
    UsageSink,
)
from hangar.localrun.pty_runner import ChildCommand
from hangar.model.run_messages import RunMessage, UsageEntry

POLL_INTERVAL = 0.05


@dataclass(frozen=True)
class Seen:
    """What one record of a session file means to hangar."""

    messages: tuple[RunMessage, ...] = ()
    plan: PlanHandoff | None = None
    """A plan the CLI proposed (it becomes the discussion's plan)."""
    handoff: PlanHandoff | None = None
    """The CLI's implement-plan action."""
    usage: tuple[UsageEntry, ...] = ()
    """Token usage the record adds (increments)."""


class SessionReader(ABC):
    """Reads one session's file from where it stopped; tolerant of partial and bad lines."""

    session_id: str = ""
    """The CLI's session id, once known (from the start, or from the file)."""

    def started(self, pid: int) -> None:
        """The CLI runs as ``pid`` (the leader of its own session)."""
        del pid  # most readers need nothing from it

    @abstractmethod
    def read(self) -> list[Seen]:
        """What the session gained since the last call (nothing when the file is missing)."""

    def finish(self) -> list[Seen]:
        """What the CLI's end settles (read once, after the last :meth:`read`)."""
        return []


@dataclass(frozen=True)
class Prepared:
    """How to start the CLI and where its session is."""

    argv: list[str]
    reader: SessionReader
    startup_input: bytes = b""
    cleanup: Callable[[], None] | None = None
    """Called once the CLI has ended (e.g. to remove a temporary folder)."""
    env: Mapping[str, str] | None = None
    """The CLI's environment when the provider must add to it (else the run's, unchanged)."""


class _Split:
    def __init__(self, messages: MessageSink, usage: UsageSink) -> None:
        self.report = messages.report
        self.add = usage.add


@dataclass
class _Follower:
    reader: SessionReader
    sink: EventSink
    hooks: DiscussionHooks | None
    pid: list[int] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _told: str = ""

    def started(self, pid: int) -> None:
        self.pid.append(pid)
        self.reader.started(pid)

    def loop(self) -> None:
        while not self._stop.wait(POLL_INTERVAL):
            self.poll()

    def poll(self, ended: bool = False) -> None:
        found = self.reader.read() + (self.reader.finish() if ended else [])
        for seen in found:
            for message in seen.messages:
                self.sink.report(message)
            for entry in seen.usage:
                self.sink.add(entry)
            if self.hooks is None:
                continue
            if self.reader.session_id and self.reader.session_id != self._told:
                self._told = self.reader.session_id
                self.hooks.session_started(self._told)
            if seen.plan is not None:
                plan = seen.plan
                self.hooks.plan_proposed(plan.plan, plan.source, plan.source_key)
            if seen.handoff is not None and not ended:  # after the exit there is no one to ask
                self._handoff(seen.handoff)

    def _handoff(self, handoff: PlanHandoff) -> None:
        assert self.hooks is not None
        self._signal(signal.SIGSTOP)  # hold the CLI while the card is up (LR-226)
        if self.hooks.native_handoff(handoff) is HandoffResult.BOUND:
            self._signal(signal.SIGCONT)  # the same process and session go on (LR-227)
        else:
            self.hooks.end_provider()

    def _signal(self, signum: int) -> None:
        if self.pid:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid[0], signum)

    def stop(self) -> None:
        self._stop.set()


class FollowedProvider(Provider):
    """Base of the providers that follow a session file (see the module docstring)."""

    supports_discussion = True

    @abstractmethod
    def prepare(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], discussion: bool
    ) -> Prepared:
        """The command line (in the CLI's plan mode for a discussion) and the session's reader."""

    def run(
        self,
        args: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        reporter: MessageSink,
        usage_reporter: UsageSink,
    ) -> int:
        return self._follow(args, cwd, env, _Split(reporter, usage_reporter), None)

    def discuss(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], hooks: DiscussionHooks
    ) -> int:
        return self._follow(args, cwd, env, hooks.sink, hooks)

    def _follow(
        self,
        args: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        sink: EventSink,
        hooks: DiscussionHooks | None,
    ) -> int:
        prepared = self.prepare(args, cwd, env, hooks is not None)
        follower = _Follower(prepared.reader, sink, hooks)
        thread = threading.Thread(target=follower.loop, name="hangar-session-follower", daemon=True)
        thread.start()
        command = ChildCommand(
            prepared.argv,
            cwd,
            env if prepared.env is None else prepared.env,
            on_started=follower.started,
            startup_input=prepared.startup_input,
        )
        try:
            return self.runner.run(command)
        finally:
            follower.stop()
            thread.join(5)
            follower.poll(ended=True)  # what the CLI wrote last
            if prepared.cleanup is not None:
                prepared.cleanup()
