"""One ``hangar run``: the generic entry point in front of the providers (LR-060, LR-061).

:func:`run_local` resolves the issue, refuses flags the provider owns and a CLI that cannot
start (not found, not executable) before anything changes the issue, creates the run, builds
the child environment, starts the reporter, usage reporter and heartbeat, runs the provider,
then finishes the run with its exit code, error and active time. Nothing here knows about a
particular CLI. When the hub is away at the end, the final status is spooled with the
messages, and ``hangar local-run sync-pending`` completes it later.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from hangar.errors import HangarError, NotFoundError
from hangar.localrun.environment import RunBinding, build_child_env
from hangar.localrun.hub_api import HubRejected, HubUnavailable, RunApi
from hangar.localrun.providers.base import IssueContext
from hangar.localrun.providers.registry import executable_name, provider_for
from hangar.localrun.pty_runner import PtyRunner
from hangar.localrun.reporter import RunReporter, UsageReporter
from hangar.localrun.spool import Spool

HEARTBEAT_SECONDS = 30.0


@dataclass(frozen=True)
class RunOptions:
    issue_key: str
    args: Sequence[str]
    cwd: Path
    no_status_update: bool = False
    comments: str = "thread"


@dataclass(frozen=True)
class RunSummary:
    run_id: str
    issue_key: str
    exit_code: int
    elapsed: float
    active_ms: int
    messages_sent: int
    left_spooled: int

    def line(self) -> str:
        text = (
            f"hangar: local run of {self.issue_key} finished in {_duration(self.elapsed)} "
            f"(active {_duration(self.active_ms / 1000)}, exit {self.exit_code}); "
            f"{self.messages_sent} messages synced"
        )
        if self.left_spooled:
            text += (
                f"; {self.left_spooled} items kept in the spool: run "
                "`hangar local-run sync-pending` once the hub is back"
            )
        return text


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m{rest:02d}s"


class _Heartbeat:
    def __init__(self, api: RunApi, run_id: str, interval: float) -> None:
        self._stop = threading.Event()

        def beat() -> None:
            while not self._stop.wait(interval):
                try:
                    api.patch_run(run_id, {})
                except HangarError:
                    continue  # the sweeper tolerates 150 s; the next beat may get through

        self._thread = threading.Thread(target=beat, name="hangar-heartbeat", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


def _issue(api: RunApi, key: str) -> dict[str, Any]:
    try:
        return api.get_issue(key)
    except HubRejected as exc:
        if exc.status == 404:
            raise NotFoundError(kind="issue", key=key) from None
        raise


def run_local(
    options: RunOptions,
    api: RunApi,
    runner: PtyRunner,
    environ: Mapping[str, str],
    spool: Spool,
    stderr: TextIO,
    heartbeat_seconds: float = HEARTBEAT_SECONDS,
) -> RunSummary:
    """Run the CLI of ``options`` bound to its issue; see the module docstring."""
    provider_class = provider_for(options.args[0])
    issue = _issue(api, options.issue_key)
    provider = provider_class(runner, IssueContext(issue["key"], str(issue.get("title") or "")))
    # Everything that can refuse the run before it exists: an issue must not move to
    # in_progress (nor get a "Started" comment) for a run that cannot start.
    provider.validate(options.args)
    runner.check(provider.startup_command(options.args, options.cwd, environ))
    run = api.create_run(
        issue["key"],
        {
            "cliName": executable_name(options.args[0]),
            "workDir": str(options.cwd),
            "commentsMode": options.comments,
            "noStatusUpdate": options.no_status_update,
            "source": "hangar-cli",
            "sourceKey": str(uuid.uuid4()),  # makes a retried create land on the same run
        },
    )
    run_id = str(run["id"])
    binding = RunBinding(
        run_id=run_id,
        issue_id=str(issue["id"]),
        issue_key=str(issue["key"]),
        workspace_id=str(run.get("workspaceId") or ""),
        server_url=api.server_url,
        run_token=str(run.get("runToken") or ""),
    )
    env = build_child_env(environ, binding)
    threading.Thread(target=lambda: _sync_older(spool, api), daemon=True).start()
    reporter = RunReporter(api, run_id, spool, wait_when_full=provider_class.reporter_backpressure)
    usage = UsageReporter(api, run_id, spool)
    heartbeat = _Heartbeat(api, run_id, heartbeat_seconds)
    started = time.monotonic()
    error: str | None = None
    try:
        code = provider.run(options.args, options.cwd, env, reporter, usage)
    except HangarError as exc:
        code, error = 1, str(exc)
        print(f"hangar: error: {exc}", file=stderr)
    finally:
        heartbeat.stop()
    elapsed = time.monotonic() - started
    for note in provider.outcome.notes:
        print(f"hangar: {note}", file=stderr)
    active_ms = provider.outcome.active_ms or int(elapsed * 1000)
    usage.close()
    left = reporter.close()
    if code != 0 and error is None:
        error = provider.outcome.error or f"{executable_name(options.args[0])} exited with {code}"
    final = {
        "status": "completed" if code == 0 else "failed",
        "exitCode": code,
        "error": error,
        "activeMs": active_ms,
    }
    try:
        api.patch_run(run_id, final)
    except (HubUnavailable, HubRejected):
        spool.put_status(run_id, final)
        left += 1
    return RunSummary(
        run_id, str(issue["key"]), code, elapsed, active_ms, reporter.stats.posted, left
    )


def _sync_older(spool: Spool, api: RunApi) -> None:
    """Re-send what earlier runs left in the spool (idempotent; errors keep it for later)."""
    try:
        spool.sync(api)
    except HangarError:
        return
