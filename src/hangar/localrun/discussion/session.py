"""One ``hangar discuss -- CLI …``: the discussion's lifecycle, owned by this parent process
(LR-062, LR-069..LR-071).

:func:`discuss_local`:

1. picks the provider (it must support discussions: a v1 plugin, or a CLI without a
   discussion mode, is refused before anything starts) and refuses flags it owns;
2. creates the discussion on the hub — or resumes the unfinished one of the session the
   arguments resume (LR-069, LR-119), restoring its last saved plan (LR-120); a hub that
   cannot be reached, or a discussion another terminal holds, is a clear error and nothing
   is started;
3. runs the CLI natively (LR-070) with the user's environment minus hangar's credentials
   plus ``HANGAR_LOCALRUN_SESSION_ID`` = the discussion id — no run or issue variables, never
   the user's token (LR-063, LR-071, LR-126); the provider's tracker reports to the
   discussion's recorder (only questions, answers and plans are kept, LR-072, LR-073), the
   hold on the discussion is renewed every 30 s;
4. serves ``/hangarcreateissue`` and the CLI's own implement-plan action (:mod:`.live`);
5. when the CLI ends: an exit caused by hangar's own signal is not an error (LR-228); a bound
   run gets its final status like ``hangar run``; the discussion's hold is released and what
   could not be sent stays in the spool. An unfinished discussion is kept (LR-118) and the
   summary says how to resume it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from hangar.errors import HangarError, UsageError
from hangar.localrun.discussion.beat import Beat
from hangar.localrun.discussion.binding import HEARTBEAT_SECONDS, Binder, BoundRun
from hangar.localrun.discussion.hub_api import DiscussionApi, TurnPoster
from hangar.localrun.discussion.live import LiveDiscussion
from hangar.localrun.discussion.recorder import DiscussionRecorder, SavedText
from hangar.localrun.discussion.targets import SwitchableSink
from hangar.localrun.environment import build_child_env
from hangar.localrun.hub_api import HubRejected, HubUnavailable
from hangar.localrun.providers.base import IssueContext, Provider
from hangar.localrun.providers.registry import executable_name, provider_for
from hangar.localrun.pty_runner import CliNotFoundError, PtyRunner
from hangar.localrun.reporter import RunReporter
from hangar.localrun.spool import Spool
from hangar.localrun.terminal.card import Defaults
from hangar.localrun.terminal.catalog import HubIssueCatalog
from hangar.localrun.terminal.commands import CommandRegistry
from hangar.localrun.terminal.inbox import EngineInbox
from hangar.localrun.terminal.issue_draft import ExecutionMode
from hangar.localrun.terminal.prompt_mode import Ask, Say

SESSION_VAR = "HANGAR_LOCALRUN_SESSION_ID"
RunnerFactory = Callable[[CommandRegistry, EngineInbox, Callable[[int], None]], PtyRunner]
"""Builds the PTY runner with the menu's commands, the engine's inbox and a pid callback."""


@dataclass(frozen=True)
class DiscussOptions:
    args: Sequence[str]
    cwd: Path
    defaults: Defaults = field(default_factory=Defaults)
    comments: str = "thread"


@dataclass
class DiscussionSummary:
    discussion_id: str
    cli: str
    exit_code: int
    resumed: bool
    kept_turns: int
    left_spooled: int = 0
    issue_key: str | None = None
    mode: ExecutionMode | None = None
    run_id: str | None = None
    run_messages: int = 0
    resume_command: str | None = None
    resumable: bool = True

    def lines(self) -> list[str]:
        if self.issue_key is None:
            head = f"hangar: discussion {self.discussion_id} kept ({self.kept_turns} turns saved)"
            if self.resume_command:
                tail = f"; resume it with `{self.resume_command}`"
            elif self.resumable:
                tail = f"; resume it with the {self.cli} session it runs in"
            else:
                tail = f"; {self.cli} cannot resume its session, so it cannot go on from here"
            out = [head + tail]
        elif self.run_id is not None:
            out = [
                f"hangar: discussion became {self.issue_key}; its local run ended "
                f"(exit {self.exit_code}); {self.run_messages} run messages synced"
            ]
        else:
            how = self.mode.label if self.mode is not None else "created"
            out = [f"hangar: discussion became {self.issue_key} ({how})"]
        if self.left_spooled:
            out.append(
                f"hangar: {self.left_spooled} items kept in the spool: run "
                "`hangar local-run sync-pending` once the hub is back"
            )
        return out


def discussion_provider(args: Sequence[str]) -> type[Provider]:
    """The provider of ``args[0]`` if it can take part in a discussion; a clear error (before
    anything starts) if not."""
    provider_class = provider_for(args[0])
    if not provider_class.supports_discussion:
        raise UsageError(provider_class.discussion_refusal(executable_name(args[0])))
    return provider_class


def _provider(args: Sequence[str], runner: PtyRunner) -> Provider:
    provider = discussion_provider(args)(runner, IssueContext("", ""))
    provider.validate(args)
    return provider


def _open(
    api: DiscussionApi,
    provider: Provider,
    options: DiscussOptions,
    client_id: str,
    environ: Mapping[str, str],
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "cliName": executable_name(options.args[0]),
        "provider": provider.name,
        "clientId": client_id,
        "workDir": str(options.cwd),
    }
    session_id = type(provider).resume_session_id(options.args, options.cwd, environ)
    if session_id:
        body["providerSessionId"] = session_id
    try:
        return api.open(body)
    except HubRejected as exc:
        if exc.error_code == "discussion_in_use":
            raise UsageError(f"cannot resume: {exc.problem}") from None
        raise


def _saved_plan(discussion: dict[str, Any]) -> SavedText | None:
    plan = discussion.get("plan")
    if not isinstance(plan, dict) or not str(plan.get("content") or "").strip():
        return None
    return SavedText(
        str(plan["content"]),
        str(plan.get("source") or "hangar"),
        str(plan.get("sourceKey") or ""),
        str(plan.get("role") or "plan"),
    )


def discuss_local(
    options: DiscussOptions,
    api: DiscussionApi,
    make_runner: RunnerFactory,
    environ: Mapping[str, str],
    spools: tuple[Spool, Spool],
    stderr: TextIO,
    ask: Ask,
    say: Say,
    heartbeat_seconds: float = HEARTBEAT_SECONDS,
) -> DiscussionSummary:
    """Run one discussion (see the module docstring). ``spools``: (discussion, run)."""
    turn_spool, run_spool = spools
    inbox = EngineInbox()
    holder: list[LiveDiscussion] = []

    def started(pid: int) -> None:
        if holder:
            holder[0].child_pid = pid

    registry = CommandRegistry()
    runner = make_runner(registry, inbox, started)
    provider = _provider(options.args, runner)
    # What the provider starts must be there: for a plugin that is its adapter, not its name.
    executable = str(provider.startup_command(options.args, options.cwd, environ).argv[0])
    if shutil.which(executable, path=environ.get("PATH")) is None:
        raise CliNotFoundError(executable=executable, problem="not found on PATH")
    client_id = f"cli-{uuid.uuid4()}"
    discussion = _open(api, provider, options, client_id, environ)  # nothing started before
    discussion_id = str(discussion["id"])
    resumed = bool(discussion.get("resumed"))
    turns = RunReporter(TurnPoster(api), discussion_id, turn_spool)
    recorder = DiscussionRecorder(turns)
    switch = SwitchableSink(recorder)
    session_ids: list[str] = [str(discussion.get("providerSessionId") or "")]

    def beat_body() -> dict[str, Any]:
        body: dict[str, Any] = {"clientId": client_id}
        if session_ids[-1]:
            body["providerSessionId"] = session_ids[-1]
        return body

    lease = Beat(lambda: api.heartbeat(discussion_id, beat_body()), heartbeat_seconds, "lease")

    def bound(_run: BoundRun) -> None:
        lease.stop()  # the run's heartbeat takes over (LR-064)
        _release(api, discussion_id, beat_body())

    binder = Binder(
        api,
        discussion_id,
        switch,
        run_spool,
        executable_name(options.args[0]),
        options.cwd,
        comments=options.comments,
        on_bound=bound,
        heartbeat_seconds=heartbeat_seconds,
    )

    def session_started(session_id: str) -> None:
        if session_id and session_id != session_ids[-1]:
            session_ids.append(session_id)
            if binder.bound is None:
                with contextlib.suppress(HangarError):  # the next beat sends it again
                    api.heartbeat(discussion_id, beat_body())

    defaults = options.defaults
    if not defaults.project:  # the most recent project, an editable initial value (LR-080)
        defaults = dataclasses.replace(defaults, project=_recent_project(api))
    live = LiveDiscussion(
        discussion_id,
        recorder,
        switch,
        binder,
        HubIssueCatalog(_Getter(api)),
        inbox,
        defaults,
        ask,
        say,
        session_started,
        plan=_saved_plan(discussion),
    )
    holder.append(live)
    for command in live.commands():
        registry.register(command)
    if resumed:
        title = discussion.get("title") or "untitled"
        print(f"hangar: resuming discussion {discussion_id} ({title})", file=stderr)
        if live.plan is not None:
            print(
                "hangar: its saved plan is back: type /hangarcreateissue to create the issue",
                file=stderr,
            )
    env = build_child_env(environ, None)
    env[SESSION_VAR] = discussion_id
    _resend_older(turn_spool, TurnPoster(api))
    try:
        code = provider.discuss(options.args, options.cwd, env, live)
    except HangarError as exc:  # e.g. the CLI cannot start: still release and report
        code = 1
        print(f"hangar: error: {exc}", file=stderr)
    finally:
        live.close()
        lease.stop()
        inbox.close()
    if live.ended_by_hangar:
        code = 0  # the CLI ended because hangar ended it (LR-098, LR-228)
    summary = DiscussionSummary(
        discussion_id,
        executable_name(options.args[0]),
        code,
        resumed,
        recorder.kept,
        resume_command=_resume_command(provider, options.args, session_ids[-1]),
        resumable=type(provider).resume_command(options.args, "session") is not None,
    )
    if binder.bound is not None:
        summary.run_id, summary.run_messages = binder.bound.run_id, 0
        left, summary.run_messages = _finish_run(api, binder.bound, code, provider, run_spool)
        summary.left_spooled += left
    else:
        _release(api, discussion_id, beat_body())
    summary.left_spooled += turns.close()
    if binder.issue is not None:
        summary.issue_key, summary.mode = binder.issue.key, binder.mode
    return summary


def _recent_project(api: DiscussionApi) -> str:
    """The project of the newest issue that has one ("" when none, or the hub cannot say)."""
    try:
        issues = api.get_json("/api/issues").get("issues") or []
    except HangarError:
        return ""
    return next((str(i["projectId"]) for i in issues if i.get("projectId")), "")


class _Getter:
    """The catalog's view of the hub: plain ``GET`` of a path."""

    def __init__(self, api: DiscussionApi) -> None:
        self.api = api

    def get(self, path: str, **params: Any) -> dict[str, Any]:
        return self.api.get_json(path, **params)


def _resend_older(spool: Spool, api: TurnPoster) -> None:
    """Re-send turns earlier discussions left in the spool, in the background."""

    def sync() -> None:
        try:
            spool.sync(api)
        except HangarError:
            return

    threading.Thread(target=sync, name="hangar-turn-resync", daemon=True).start()


def _resume_command(provider: Provider, args: Sequence[str], session_id: str) -> str | None:
    if not session_id:
        return None
    command = type(provider).resume_command(args, session_id)
    return f"hangar discuss -- {command}" if command else None


def _release(api: DiscussionApi, discussion_id: str, body: dict[str, Any]) -> None:
    with contextlib.suppress(HangarError):  # else the hold lapses by itself after 90 s
        api.heartbeat(discussion_id, {**body, "release": True})


def _finish_run(
    api: DiscussionApi, bound: BoundRun, code: int, provider: Provider, spool: Spool
) -> tuple[int, int]:
    """The run's final status, as ``hangar run`` sends it; (left spooled, messages posted)."""
    bound.heartbeat.stop()
    bound.usage.close()
    left = bound.reporter.close()
    error = None if code == 0 else provider.outcome.error or f"{provider.name} exited with {code}"
    final: dict[str, Any] = {
        "status": "completed" if code == 0 else "failed",
        "exitCode": code,
        "error": error,
    }
    if provider.outcome.active_ms:
        final["activeMs"] = provider.outcome.active_ms
    try:
        api.runs.patch_run(bound.run_id, final)
    except (HubUnavailable, HubRejected):
        spool.put_status(bound.run_id, final)
        left += 1
    return left, bound.reporter.stats.posted
