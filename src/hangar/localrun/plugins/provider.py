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
discuss``): only ``HANGAR_LOCALRUN_SESSION_ID``, and a binder that does the real binding.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
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
    SplitTarget,
)
from hangar.localrun.plugins.manifest import PluginManifest, load_manifest
from hangar.localrun.plugins.run_log import RunLog, run_log_path
from hangar.localrun.plugins.session import AdapterSession, SessionOutcome
from hangar.localrun.providers.base import MessageSink, Provider, UsageSink
from hangar.localrun.pty_runner import ChildCommand, PtyRunner
from hangar.paths import Env


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


def plugin_provider_class(manifest: PluginManifest) -> type[Provider]:
    """A :class:`PluginProvider` subclass bound to ``manifest`` (named after the plugin)."""
    attributes = {"name": manifest.name, "executables": (manifest.name,), "manifest": manifest}
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
) -> SessionOutcome:
    """Run a v2 plugin for a discussion (the entry ``hangar discuss`` uses).

    ``session_id`` is the stable discussion id (``HANGAR_LOCALRUN_SESSION_ID``); the adapter
    gets no run or issue variables and never the user's token. ``target`` receives messages
    and usage (a :class:`~hangar.localrun.plugins.handoff.SwitchableTarget` lets ``binder``
    redirect them to the run it creates); ``binder`` answers ``handoff_ready``.
    """
    if not manifest.supports_discussions:
        raise UsageError(
            f"{manifest.name} speaks {manifest.protocol}, which is issue-first only: use "
            f"`hangar run ISSUE -- {manifest.name}` (discussions need "
            "hangar-localrun-provider.v2)"
        )
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
    )
    try:
        return session.run(args, cwd, discussion_base_env(parent_env))
    finally:
        log.close()
