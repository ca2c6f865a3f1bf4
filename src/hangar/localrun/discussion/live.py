"""A running discussion as its provider and its terminal see it.

:class:`LiveDiscussion` implements :class:`~hangar.localrun.providers.base.DiscussionHooks`
(what the provider may tell or ask) and the ``/hangarcreateissue`` command (LR-009). Both
paths open the same card (LR-074):

- ``/hangarcreateissue`` (typed, or picked in the menu): the card over the current plan — the
  last plan the CLI proposed, else its last answer, else nothing (the card then says there is
  nothing to create) — with every execution mode and "Continue discussing" (LR-083); Ctrl+C
  goes back to the discussion (LR-084). Creating with *hand to an agent* or *only create*
  ends the CLI (LR-092).
- :meth:`LiveDiscussion.native_handoff` (the CLI's own implement-plan action, on the
  provider's hook or proxy thread): saves the plan, asks the engine (through its inbox) to
  open the card with the mode locked (LR-085), and blocks until the card is done. Created:
  the run is bound, the CLI goes on with the same session, and the notice follows once the
  CLI has redrawn (LR-100, LR-101). Cancelled: the provider blocks the action and asks hangar
  to end the CLI; the discussion stays open for a later resume (LR-086, LR-228).

Without an engine (no terminal) the card's questions are asked line by line (LR-114).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from hangar.errors import HangarError
from hangar.localrun.discussion.binding import Binder
from hangar.localrun.discussion.recorder import DiscussionRecorder, SavedText
from hangar.localrun.discussion.targets import SwitchableSink
from hangar.localrun.providers.base import EventSink, HandoffResult, PlanHandoff, RunBinding
from hangar.localrun.terminal.card import Defaults, IssueCard, finish_card
from hangar.localrun.terminal.catalog import IssueCatalog
from hangar.localrun.terminal.commands import Command, CommandRegistry
from hangar.localrun.terminal.inbox import EngineInbox
from hangar.localrun.terminal.issue_draft import CardResult, ExecutionMode, Origin, Outcome
from hangar.localrun.terminal.notice import success_lines
from hangar.localrun.terminal.overlay import Host, Overlay
from hangar.localrun.terminal.prompt_mode import Ask, Say, prompt_for_issue

CREATE_COMMAND = "/hangarcreateissue"


@dataclass
class LiveDiscussion:
    discussion_id: str
    recorder: DiscussionRecorder
    switch: SwitchableSink
    binder: Binder
    catalog: IssueCatalog
    inbox: EngineInbox
    defaults: Defaults
    ask: Ask
    say: Say
    on_session: Callable[[str], None]
    plan: SavedText | None = None
    ended_by_hangar: bool = False
    child_pid: int | None = None
    results: list[CardResult] = field(default_factory=list)
    _closing: threading.Event = field(default_factory=threading.Event)

    # -- DiscussionHooks ----------------------------------------------------------------
    @property
    def sink(self) -> EventSink:
        return self.switch

    def session_started(self, provider_session_id: str) -> None:
        self.on_session(provider_session_id)

    def plan_proposed(self, plan: str, source: str, source_key: str) -> None:
        if self.binder.issue is None and plan.strip():
            self.plan = self.recorder.plan(plan, source, source_key)

    def native_handoff(self, handoff: PlanHandoff) -> HandoffResult:
        if self.binder.bound is not None:
            return HandoffResult.BOUND  # a later plan in a bound run just goes on
        if self.binder.issue is not None:
            return HandoffResult.CANCELLED
        kept = self.recorder.saved(handoff.source_key)
        if kept is not None and kept.content == handoff.plan:
            self.plan = kept  # the handoff names a saved answer or plan: the card shows it
        else:
            self.plan_proposed(handoff.plan, handoff.source, handoff.source_key)
        plan = self.plan or SavedText("", handoff.source, handoff.source_key, "plan")
        if not self.inbox.attached:
            result = self._prompt(plan, Origin.NATIVE)
        else:
            result = self._card_and_wait(plan)
        if result is None or result.outcome is not Outcome.CREATED:
            return HandoffResult.CANCELLED
        return HandoffResult.BOUND

    def end_provider(self) -> None:
        self.ended_by_hangar = True
        if self.child_pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.child_pid, signal.SIGCONT)  # a paused CLI must see the hangup
                os.killpg(self.child_pid, signal.SIGHUP)

    def saved_plan(self, source_key: str | None) -> PlanHandoff | None:
        saved = self.current_plan() if source_key is None else self.recorder.saved(source_key)
        if saved is None or not saved.content.strip():
            return None
        return PlanHandoff(saved.content, saved.source, saved.source_key)

    @property
    def binding(self) -> RunBinding | None:
        bound = self.binder.bound
        if bound is None:
            return None
        return RunBinding(self.binder.issue_id, bound.issue_key, bound.run_id)

    # -- the card -----------------------------------------------------------------------
    def current_plan(self) -> SavedText:
        plan = self.plan or self.recorder.last_answer
        return plan if plan is not None else SavedText("", "hangar", "no-plan", "plan")

    def commands(self) -> CommandRegistry:
        return CommandRegistry(
            (Command(CREATE_COMMAND, "Create an issue from the discussed plan", self._plain),)
        )

    def _card(
        self, plan: SavedText, origin: Origin, on_result: Callable[[CardResult, Host], None]
    ) -> IssueCard:
        self.binder.plan = plan
        return IssueCard(
            plan.content,
            self.catalog,
            self.binder.create,
            origin=origin,
            defaults=self.defaults,
            on_result=on_result,
        )

    def _plain(self, _host: Host) -> Overlay | None:
        if self.binder.issue is not None:
            return None  # the issue exists; the work goes on in the run
        return self._card(self.current_plan(), Origin.PLAIN, self._plain_result)

    def _plain_result(self, result: CardResult, host: Host) -> None:
        self.results.append(result)
        created = result.outcome is Outcome.CREATED
        if created and result.draft.mode is not ExecutionMode.CONTINUE:
            self.ended_by_hangar = True
        finish_card(result, host)

    def _card_and_wait(self, plan: SavedText) -> CardResult | None:
        done = threading.Event()
        box: list[CardResult] = []

        def on_result(result: CardResult, host: Host) -> None:
            self.results.append(result)
            box.append(result)
            done.set()  # releases the CLI's action first (LR-100) …
            if result.outcome is Outcome.CREATED and result.issue is not None:
                issue = result.issue  # … then the notice, once the CLI has redrawn
                host.show_notice(success_lines(issue.title, issue.key, issue.url), keep_rows=True)

        card = self._card(plan, Origin.NATIVE, on_result)
        self.inbox.submit(lambda engine: engine.open_overlay(card))
        while not done.wait(0.25):
            if self._closing.is_set() or not self.inbox.attached:
                return None
        return box[0]

    def _prompt(self, plan: SavedText, origin: Origin) -> CardResult | None:
        self.binder.plan = plan
        try:
            result = prompt_for_issue(
                plan.content,
                self.catalog,
                self.binder.create,
                self.ask,
                self.say,
                origin=origin,
                defaults=self.defaults,
            )
        except HangarError as exc:  # the questions could not be asked (no input at all)
            self.say(f"hangar: {exc}")
            return None
        self.results.append(result)
        return result

    def close(self) -> None:
        """The CLI ended: a card still waiting for an answer gives up."""
        self._closing.set()
