"""The one switch of "continue in this CLI": where the tracker's events go (LR-064).

The provider's tracker reports to a :class:`SwitchableSink` for the whole life of the CLI.
Before the issue exists it forwards to the discussion's recorder; once the run is bound,
:meth:`SwitchableSink.switch` points it at the run's reporter and usage reporter. Nothing
about the running child changes (LR-065): no environment, no injected text (LR-066).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from hangar.localrun.providers.base import EventSink, MessageSink, UsageSink
from hangar.model.run_messages import RunMessage, UsageEntry


@dataclass
class SplitSink:
    """An :class:`EventSink` made of the run reporter and the usage reporter."""

    messages: MessageSink
    usage: UsageSink

    def report(self, message: RunMessage) -> None:
        self.messages.report(message)

    def add(self, delta: UsageEntry) -> None:
        self.usage.add(delta)


class SwitchableSink:
    def __init__(self, target: EventSink) -> None:
        self._target = target
        self._lock = threading.Lock()

    @property
    def current(self) -> EventSink:
        with self._lock:
            return self._target

    def switch(self, target: EventSink) -> None:
        with self._lock:
            self._target = target

    def report(self, message: RunMessage) -> None:
        self.current.report(message)

    def add(self, delta: UsageEntry) -> None:
        self.current.add(delta)
