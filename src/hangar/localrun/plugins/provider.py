"""A provider plugin as a live provider of ``hangar run`` (LR-137, LR-141, LR-184).

:func:`plugin_provider_for` finds the plugin named ``name`` (discovery, then strict manifest
validation) and returns a :class:`PluginProvider` subclass bound to its manifest, which
:func:`hangar.localrun.providers.registry.provider_for` hands to ``run_local`` exactly like a
built-in. The provider runs the adapter in an :class:`AdapterSession` in issue mode: the run
binding comes from the environment ``run_local`` built, messages go to the reporter (which
waits instead of spooling when full: a pipe can wait), usage to the usage reporter, and a
``handoff_ready`` is answered at once with the run's ids. The adapter's exit code is the
run's; invalid lines and repeated keys are summed up for the user after the run.

:func:`run_discussion_session` is the same adapter run for a v2 discussion (``hangar
discuss``): only ``HANGAR_LOCALRUN_SESSION_ID``, and a binder that does the real binding —
:meth:`PluginProvider.discuss` runs it with :class:`DiscussionBinder`, which serves a
``handoff_ready`` as the CLI's own implement-plan action (the card, then the binding).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, TextIO, cast

from hangar.errors import UsageError
from hangar.localrun.plugins.discovery import discover
from hangar.localrun.plugins.environment import discussion_base_env
from hangar.localrun.plugins.handoff import (
    BoundRun,
    EventTarget,
    HandoffBinder,
    HandoffBinding,
    HandoffRequest,
    SplitTarget,
)
from hangar.localrun.plugins.manifest import PluginManifest, load_manifest
from hangar.localrun.plugins.run_log import RunLog, run_log_path
from hangar.localrun.plugins.session import AdapterSession, SessionOutcome
from hangar.localrun.providers.base import (
    DiscussionHooks,
    HandoffResult,
    MessageSink,
    PlanHandoff,
    Provider,
    UsageSink,
)
from hangar.localrun.pty_runner import ChildCommand, PtyRunner
from hangar.paths import Env

SESSION_VAR = "HANGAR_LOCALRUN_SESSION_ID"


class PluginProvider(Provider):
    """Base of the provider classes made for plugins (one subclass per manifest)."""

    manifest: ClassVar[PluginManifest]
    reporter_backpressure = True
    echo: ClassVar[TextIO | None] = None
    """Where the pipe-mode echo of messages goes (``None``: hangar's stdout)."""

    def startup_command(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str]
    ) -> ChildCommand:
        return ChildCommand([str(self.manifest.command), *args[1:]], cwd, env)

    def run(
        self,
        args: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        reporter: MessageSink,
        usage_reporter: UsageSink,
    ) -> int:
        manifest = self.manifest
        run_id = env.get("HANGAR_RUN_ID", "")
        binding = HandoffBinding(
            env.get("HANGAR_ISSUE_ID", ""), env.get("HANGAR_ISSUE_KEY", ""), run_id
        )
        log = RunLog(run_log_path(run_id or "run"))
        session = AdapterSession(
            manifest,
            mode="issue",
            session_id=run_id,
            target=SplitTarget(reporter, usage_reporter),
            log=log,
            binder=BoundRun(binding),
            runner=self.runner,
            echo=self.echo or sys.stdout,
        )
        try:
            outcome = session.run(
                args[1:],
                cwd,
                env,
                issue_title=self.issue.title,
                issue_context=self.issue.prompt(),
            )
        finally:
            log.close()
        self._summarize(outcome)
        return outcome.exit_code

    @classmethod
    def discussion_refusal(cls, executable: str) -> str:
        return issue_first_refusal(cls.manifest)

    def discuss(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], hooks: DiscussionHooks
    ) -> int:
        """The adapter in discussion mode: its events go to the discussion (the run once
        bound), the CLI session ids it reports to ``hooks.session_started`` and its
        ``handoff_ready`` to the card through :class:`DiscussionBinder`."""
        session_id = env.get(SESSION_VAR, "")
        if not session_id:
            raise UsageError(f"{self.manifest.name}: a discussion needs {SESSION_VAR}")
        outcome = run_discussion_session(
            self.manifest,
            args[1:],
            cwd,
            env,
            session_id=session_id,
            target=hooks.sink,
            binder=DiscussionBinder(hooks),
            runner=self.runner,
            echo=self.echo or sys.stdout,
            on_session=hooks.session_started,
        )
        self._summarize(outcome)
        return outcome.exit_code

    def _summarize(self, outcome: SessionOutcome) -> None:
        name = self.manifest.name
        notes = [f"{name}: {problem}" for problem in outcome.stats.problems()]
        if outcome.stats.lines == 0 and self.manifest.capabilities.structured_events:
            notes.append(f"{name}: the adapter wrote no events")
        if outcome.exit_code != 0:
            self.outcome.error = f"{name} adapter exited with {outcome.exit_code}"
            if outcome.signals:
                self.outcome.error += f" after hangar sent {', '.join(outcome.signals)}"
        if notes or outcome.exit_code != 0:
            notes.append(f"{name}: adapter log: {outcome.log_path}")
        self.outcome.notes.extend(notes)


@dataclass(frozen=True)
class DiscussionBinder:
    """The :class:`~hangar.localrun.plugins.handoff.HandoffBinder` of a discussion: an
    adapter's ``handoff_ready`` is its CLI's own implement-plan action. The plan is the answer
    (or plan) the discussion kept under the handoff's ``plan_source_key`` — without a key, or
    with one nothing was kept under, the discussion's current plan. The card over it opens
    with "continue in this CLI" locked, as for a built-in's action; created, the adapter is
    told the issue's and run's ids (never the plan), else that the handoff was cancelled."""

    hooks: DiscussionHooks

    def bind(self, request: HandoffRequest) -> HandoffBinding | None:
        named = request.plan_source_key
        plan = (self.hooks.saved_plan(named) if named else None) or self.hooks.saved_plan(None)
        if plan is None:  # nothing to create: the card says so and the handoff is cancelled
            plan = PlanHandoff("", "hangar", named or "no-plan")
        result = self.hooks.native_handoff(
            dataclasses.replace(plan, context=request.context or "current")
        )
        bound = self.hooks.binding
        if result is not HandoffResult.BOUND or bound is None:
            return None
        return HandoffBinding(bound.issue_id, bound.issue_key, bound.run_id)


def issue_first_refusal(manifest: PluginManifest) -> str:
    """Why ``hangar discuss`` refuses a plugin without discussions (LR-143, LR-144)."""
    return (
        f"`{manifest.name}` cannot be used with `hangar discuss`: the plugin speaks "
        f"{manifest.protocol}, which is issue-first only (discussions need "
        f"hangar-localrun-provider.v2); use `hangar run ISSUE -- {manifest.name}` once the "
        "issue exists"
    )


def plugin_provider_class(manifest: PluginManifest) -> type[Provider]:
    """A :class:`PluginProvider` subclass bound to ``manifest`` (named after the plugin); it
    takes part in discussions when its manifest supports them (protocol v2)."""
    attributes = {
        "name": manifest.name,
        "executables": (manifest.name,),
        "manifest": manifest,
        "supports_discussion": manifest.supports_discussions,
    }
    return cast(
        "type[Provider]", type(f"PluginProvider[{manifest.name}]", (PluginProvider,), attributes)
    )


def plugin_provider_for(name: str, environ: Env | None = None) -> type[Provider] | None:
    """The provider class of the enabled plugin ``name``, ``None`` when there is none; a
    name clash or an invalid manifest is an error naming the files (LR-139)."""
    found = discover(environ)
    collision = found.collision_for(name)
    if collision is not None:
        raise collision
    for entry in found.enabled():
        if entry.name == name:
            return plugin_provider_class(load_manifest(entry.manifest_path))
    return None


def refuse_clash(name: str, environ: Env | None = None) -> None:
    """Raise when a plugin claims the built-in name ``name`` (never a silent shadow)."""
    collision = discover(environ).collision_for(name)
    if collision is not None:
        raise collision


def plugin_names(environ: Env | None = None) -> list[str]:
    """Names of the enabled plugins (for "supported:" lists in error messages)."""
    return sorted({e.name for e in discover(environ).enabled() if e.name})


def run_discussion_session(
    manifest: PluginManifest,
    args: Sequence[str],
    cwd: Path,
    parent_env: Mapping[str, str],
    *,
    session_id: str,
    target: EventTarget,
    binder: HandoffBinder,
    runner: PtyRunner | None,
    echo: TextIO | None = None,
    environ: Env | None = None,
    on_session: Callable[[str], None] | None = None,
) -> SessionOutcome:
    """Run a v2 plugin for a discussion (the entry ``hangar discuss`` uses).

    ``session_id`` is the stable discussion id (``HANGAR_LOCALRUN_SESSION_ID``); the adapter
    gets no run or issue variables and never the user's token. ``target`` receives messages
    and usage (a :class:`~hangar.localrun.plugins.handoff.SwitchableTarget` lets ``binder``
    redirect them to the run it creates); ``binder`` answers ``handoff_ready``;
    ``on_session`` is told each CLI session id the adapter reports.
    """
    if not manifest.supports_discussions:
        raise UsageError(issue_first_refusal(manifest))
    log = RunLog(run_log_path(session_id, environ))
    session = AdapterSession(
        manifest,
        mode="discussion",
        session_id=session_id,
        target=target,
        log=log,
        binder=binder,
        runner=runner,
        echo=echo,
        on_session=on_session,
    )
    try:
        return session.run(args, cwd, discussion_base_env(parent_env))
    finally:
        log.close()
