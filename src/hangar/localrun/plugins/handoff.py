"""The v2 native plan handoff, hangar's side (LR-064..LR-068, LR-147..LR-149).

When the user picks the CLI's implement-plan action, the adapter writes ``handoff_ready``
(a ``handoff_id``, optionally the ``plan_source_key`` of the event holding the plan and the
``context`` the CLI continues in) and waits. hangar hands a :class:`HandoffRequest` to the
session's :class:`HandoffBinder`, which does the binding — in a discussion (``hangar discuss``)
that is the confirmation card, creating the issue from the saved plan and the run, and
switching the reporter, usage reporter and heartbeat to the run (:class:`SwitchableTarget`);
in a ``hangar run`` the run exists already (:class:`BoundRun`). hangar then writes one
``handoff_decision`` frame on the adapter's control channel: ``decision: "bound"`` with
``issue_id``, ``issue_key`` and ``run_id`` — never the plan or any issue text — or ``decision:
"cancelled"``, after which the adapter ends its CLI and exits.

The running adapter's environment never changes (LR-065): the ids reach it only in that
frame.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Literal, Protocol

from hangar.localrun.providers.base import MessageSink, UsageSink
from hangar.model.run_messages import RunMessage, UsageEntry


@dataclass(frozen=True)
class HandoffRequest:
    """What the adapter's ``handoff_ready`` said (ids only)."""

    handoff_id: str
    plan_source_key: str | None = None
    context: Literal["current", "clear"] | None = None
    provider_session_id: str | None = None
    """The CLI session id the adapter reported last (a discussion is resumed by it)."""


@dataclass(frozen=True)
class HandoffBinding:
    """The result of a binding: the only thing the adapter is told (LR-067)."""

    issue_id: str
    issue_key: str
    run_id: str


class HandoffBinder(Protocol):
    """Does the binding for one handoff; called on the event reader's thread, so the adapter
    waits (its events pause) until it returns."""

    def bind(self, request: HandoffRequest) -> HandoffBinding | None:
        """The binding, or ``None`` when the user cancelled (the adapter is told so)."""
        ...


@dataclass(frozen=True)
class BoundRun:
    """The binder of a ``hangar run``: the run and issue exist; every handoff gets them."""

    binding: HandoffBinding

    def bind(self, request: HandoffRequest) -> HandoffBinding | None:
        return self.binding


class EventTarget(Protocol):
    """Where a session's messages and usage go (the reporters, or a discussion's recorder)."""

    def report(self, message: RunMessage) -> None: ...
    def add(self, delta: UsageEntry) -> None: ...


class SwitchableTarget:
    """An :class:`EventTarget` whose destination a binder switches once the run exists
    (LR-064): messages before :meth:`switch` go to the first target, later ones to the new."""

    def __init__(self, target: EventTarget) -> None:
        self._target = target
        self._lock = threading.Lock()

    def switch(self, target: EventTarget) -> None:
        with self._lock:
            self._target = target

    @property
    def current(self) -> EventTarget:
        with self._lock:
            return self._target

    def report(self, message: RunMessage) -> None:
        self.current.report(message)

    def add(self, delta: UsageEntry) -> None:
        self.current.add(delta)


@dataclass
class SplitTarget:
    """An :class:`EventTarget` made of a message sink and a usage sink (the two reporters)."""

    messages: MessageSink
    usage: UsageSink

    def report(self, message: RunMessage) -> None:
        self.messages.report(message)

    def add(self, delta: UsageEntry) -> None:
        self.usage.add(delta)
