"""What a discussion keeps: the questions and answers the user saw, and the plans (LR-072).

:class:`DiscussionRecorder` is the discussion's :class:`~hangar.localrun.providers.base.EventSink`:
a provider's tracker reports the same run messages it reports in ``hangar run``, and the
recorder keeps, turn by turn,

- a ``user_input`` the user typed (not injected context, not a bare or non-commentable slash
  command) as the question;
- the turn's ``final`` reply as the answer;

and drops everything else — ``thinking``, ``tool_use``, ``tool_result``, ``error``, the
``text`` a CLI writes between tool calls, and usage (LR-073). Plans come separately, through
:meth:`DiscussionRecorder.plan` (the provider saw them in its structured events). Kept turns
go to a :class:`~hangar.localrun.reporter.RunReporter` over
:class:`~hangar.localrun.discussion.hub_api.TurnPoster`: queued, retried, spooled while the
hub is away and re-sent once it is back, each stored once by its sourceKey.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from hangar.localrun.discussion.hub_api import PLAN_KIND
from hangar.localrun.providers.base import MessageSink
from hangar.model.run_messages import RunMessage, UsageEntry


@dataclass(frozen=True)
class SavedText:
    """A turn the recorder kept (or a plan), with the key it is stored under."""

    content: str
    source: str
    source_key: str
    role: str


def is_question(message: RunMessage) -> bool:
    data = message.input
    if message.type != "user_input" or data.get("injected"):
        return False
    if data.get("command") and not data.get("commentable"):
        return False
    return bool(message.content.strip())


class DiscussionRecorder:
    def __init__(self, turns: MessageSink) -> None:
        self._turns = turns
        self._lock = threading.Lock()
        self.last_answer: SavedText | None = None
        self.answers: dict[str, SavedText] = {}
        """Kept answers and plans by sourceKey (a plugin's handoff names its plan's message by
        key); the first one under a key, as the hub stores only that one."""
        self._kept: set[tuple[str, str]] = set()
        self.dropped = 0

    @property
    def kept(self) -> int:
        """How many turns (distinct source keys) were kept."""
        return len(self._kept)

    def report(self, message: RunMessage) -> None:
        if is_question(message):
            self._keep(message)
        elif message.type == "final" and message.content.strip():
            kept = message.prepared().content  # as the hub will store it
            answer = SavedText(kept, message.source, message.source_key, "assistant")
            with self._lock:
                self.last_answer = answer
                self.answers.setdefault(message.source_key, answer)  # stored once per key
            self._keep(message)
        else:
            self.dropped += 1

    def add(self, delta: UsageEntry) -> None:
        """Usage before a run exists is not kept (there is nothing to bill it to)."""

    def plan(self, text: str, source: str, source_key: str) -> SavedText:
        """Keep a plan the CLI proposed; returns it as saved — redacted and bounded like every
        message, so the card shows, and the issue gets, exactly the text the hub keeps."""
        message = RunMessage("text", source, source_key, text, input={"kind": PLAN_KIND})
        message = message.prepared()
        self._turns.report(message)
        self._kept.add((source, source_key))
        saved = SavedText(message.content, source, source_key, "plan")
        with self._lock:
            self.answers.setdefault(source_key, saved)
        return saved

    def saved(self, source_key: str) -> SavedText | None:
        """The answer or plan kept under ``source_key`` (``None`` when there is none)."""
        with self._lock:
            return self.answers.get(source_key)

    def _keep(self, message: RunMessage) -> None:
        self._kept.add((message.source, message.source_key))
        self._turns.report(
            RunMessage(message.type, message.source, message.source_key, message.content)
        )
