"""The conformance kit for provider plugins: ``hangar local-run provider validate DIR --run``.

:func:`check_manifest` checks the folder's ``provider.json`` (schema, command, name free of
the built-ins). :func:`check_plugin` also runs the adapter through hangar's own session code
(:class:`~hangar.localrun.plugins.session.AdapterSession`: the same environment builder,
channels and event reader as ``hangar run``), with a stand-in hub for ``HANGAR_SERVER_URL``
and, when the spec names a scenario, the scripted fake model (ids restarted per run):

- the issue-first run twice with identical input, and for v2 a discussion run (with only
  ``HANGAR_LOCALRUN_SESSION_ID``); with ``native_plan_handoff`` a second discussion run whose
  handoff is cancelled;
- checks: exit codes; every stdout/event line a valid event (diagnostics belong on stderr);
  no fields outside the protocol; no source key repeated in a run; the same keys in both
  identical runs (keys may embed the session ids the adapter reported, nothing else that
  changes: time, random numbers, counters); usage events as the manifest declares; the stand-in
  hub used only with the run token and only for what it may read; for the handoff: a
  ``handoff_ready`` with ids only, the decision delivered, and an exit after a cancel.

The report (:class:`KitReport`) prints one PASS/FAIL line per check, or JSON.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hangar.errors import HangarError
from hangar.localrun.environment import RunBinding, build_child_env
from hangar.localrun.plugins.discovery import builtin_names
from hangar.localrun.plugins.environment import Mode, discussion_base_env
from hangar.localrun.plugins.events import HandoffReadyEvent, decode_event, unknown_fields
from hangar.localrun.plugins.handoff import HandoffBinding
from hangar.localrun.plugins.manifest import (
    MANIFEST_NAME,
    PROTOCOL_V2,
    ManifestError,
    PluginManifest,
    load_manifest,
)
from hangar.localrun.plugins.run_log import RunLog
from hangar.localrun.plugins.session import AdapterSession
from hangar.localrun.providers.base import IssueContext
from hangar.testing.fake_model import FakeModelServer
from hangar.testing.plugin_kit_harness import (
    KIT_DISCUSSION_RUN_ID,
    KIT_ISSUE,
    KIT_RUN_ID,
    KIT_RUN_TOKEN,
    KIT_SESSION_ID,
    KitBinder,
    KitPtyRunner,
    KitRun,
    KitSpec,
    KitStep,
    Recorder,
    StubHub,
    expand,
    load_kit_spec,
)

__all__ = ["KitReport", "KitSpec", "check_manifest", "check_plugin", "load_kit_spec"]


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


@dataclass
class KitRunRecord:
    """What one adapter run produced, as the kit saw it."""

    label: str
    mode: Mode
    exit_code: int = -1
    expected_exit: int = 0
    lines: list[bytes] = field(default_factory=list)
    recorder: Recorder = field(default_factory=Recorder)
    invalid: int = 0
    first_invalid: str | None = None
    duplicates: int = 0
    session_ids: list[str] = field(default_factory=list)
    handoffs: list[HandoffReadyEvent] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    log_text: str = ""
    screen: str = ""
    problem: str | None = None

    def keys(self) -> list[str]:
        """The run's message keys with each reported session id replaced by a placeholder."""
        keys = []
        for message in self.recorder.messages:
            key = f"{message.type} {message.source} {message.source_key}"
            for index, session_id in enumerate(self.session_ids):
                key = key.replace(session_id, f"<session-{index + 1}>")
            keys.append(key)
        return keys

    def as_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "mode": self.mode,
            "exitCode": self.exit_code,
            "expectedExit": self.expected_exit,
            "eventLines": len(self.lines),
            "invalid": self.invalid,
            "firstInvalid": self.first_invalid,
            "duplicates": self.duplicates,
            "sessionIds": self.session_ids,
            "messages": [m.to_json() for m in self.recorder.messages],
            "usage": [u.to_json() for u in self.recorder.usage],
            "handoffs": [h.handoff_id for h in self.handoffs],
            "decisions": self.decisions,
            "problem": self.problem,
            "log": self.log_text[-4000:],
        }


@dataclass
class KitReport:
    folder: Path
    manifest: PluginManifest | None = None
    checks: list[Check] = field(default_factory=list)
    runs: list[KitRunRecord] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    def add(self, name: str, ok: bool, detail: str) -> None:
        self.checks.append(Check(name, ok, detail))

    def lines(self) -> list[str]:
        title = f"{self.manifest.name} ({self.manifest.protocol})" if self.manifest else "plugin"
        out = [f"{title} in {self.folder}"]
        out += [f"  {'PASS' if c.ok else 'FAIL'} {c.name}: {c.detail}" for c in self.checks]
        failed = sum(not c.ok for c in self.checks)
        out.append(f"result: {len(self.checks) - failed} passed, {failed} failed")
        return out

    def as_json(self) -> dict[str, Any]:
        return {
            "folder": str(self.folder),
            "name": self.manifest.name if self.manifest else None,
            "ok": self.ok,
            "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in self.checks],
            "runs": [run.as_json() for run in self.runs],
        }


def check_manifest(folder: Path) -> KitReport:
    """The manifest checks alone (``validate DIR`` without ``--run``)."""
    report = KitReport(folder)
    try:
        manifest = load_manifest(folder / MANIFEST_NAME)
    except ManifestError as exc:
        for problem in exc.problems:
            report.add("manifest", False, f"{exc.path}: {problem.render()}")
        return report
    report.manifest = manifest
    report.add(
        "manifest",
        True,
        f"{MANIFEST_NAME} follows the schema; {manifest.command.name} is executable "
        "inside the folder",
    )
    builtins = builtin_names()
    taken = builtins.get(manifest.name)
    report.add(
        "name",
        taken is None,
        f"{manifest.name!r} is free"
        if taken is None
        else f"{manifest.name!r} belongs to the built-in provider {taken!r}",
    )
    return report


def _parent_env(spec: KitSpec, values: Mapping[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    env.update({name: expand(value, values) for name, value in spec.env.items()})
    return env


def _run_adapter(
    manifest: PluginManifest,
    spec: KitSpec,
    run: KitRun,
    *,
    label: str,
    mode: Mode,
    work: Path,
    hub: StubHub,
    model: FakeModelServer | None,
    binding: HandoffBinding | None,
) -> KitRunRecord:
    """One adapter run. With ``binding=None`` every handoff is cancelled, after which the
    adapter should exit, so steps it never reached are expected."""
    record = KitRunRecord(label, mode, expected_exit=run.expect_exit)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="hangar-kit-") as tmp:
        if model is not None and spec.scenario is not None:
            model.load(spec.scenario, restart_ids=True)
        values = {
            "tmp": tmp,
            "plugin_dir": str(manifest.folder),
            "model_url": f"http://127.0.0.1:{model.port}" if model is not None else "",
        }
        spec.write_files(values)
        parent = _parent_env(spec, values)
        issue = IssueContext(KIT_ISSUE["key"], KIT_ISSUE["title"])
        if mode == "issue":
            base = build_child_env(
                parent,
                RunBinding(
                    KIT_RUN_ID, KIT_ISSUE["id"], KIT_ISSUE["key"], "kit-workspace", hub.url,
                    KIT_RUN_TOKEN,
                ),
            )  # fmt: skip
            session_id = KIT_RUN_ID
        else:
            base, session_id = discussion_base_env(parent), KIT_SESSION_ID
        binder = KitBinder(binding)
        log = RunLog(Path(tmp) / "adapter.log")
        runner = (
            KitPtyRunner(_expand_steps(run, values), run.timeout)
            if manifest.capabilities.interactive_pty
            else None
        )

        def observe(_number: int, line: bytes) -> None:
            record.lines.append(line)

        session = AdapterSession(
            manifest,
            mode=mode,
            session_id=session_id,
            target=record.recorder,
            log=log,
            binder=binder,
            runner=runner,
            observer=observe,
        )
        try:
            outcome = session.run(
                [expand(arg, values) for arg in run.args],
                work,
                base,
                issue_title=issue.title,
                issue_context=issue.prompt(),
                timeout=run.timeout,
            )
        except HangarError as exc:
            record.problem = str(exc)
            log.close()
            return record
        finally:
            log.close()
        record.exit_code = outcome.exit_code
        record.invalid = outcome.stats.invalid
        record.first_invalid = outcome.stats.first_invalid
        record.duplicates = outcome.stats.duplicates
        record.session_ids = outcome.session_ids
        record.log_text = (Path(tmp) / "adapter.log").read_text("utf-8", "replace")
        record.decisions = [
            line.split(" ", 3)[-1]
            for line in record.log_text.splitlines()
            if "handoff_decision" in line
        ]
        if runner is not None:
            record.screen = runner.screen.decode("utf-8", "replace")[-4000:]
            if runner.missed is not None and binding is not None:
                record.problem = f"the terminal never showed {runner.missed.expect!r}"
        for line in record.lines:
            try:
                event = decode_event(line)
            except ValueError:
                continue
            if isinstance(event, HandoffReadyEvent):
                record.handoffs.append(event)
        return record


def _expand_steps(run: KitRun, values: Mapping[str, str]) -> list[KitStep]:
    return [KitStep(step.expect, expand(step.send, values)) for step in run.steps]


def _check_run(report: KitReport, run: KitRunRecord, manifest: PluginManifest) -> None:
    name = run.label
    if run.problem is not None:
        report.add(f"{name}: ran", False, run.problem)
    report.add(
        f"{name}: exit code",
        run.exit_code == run.expected_exit,
        f"{run.exit_code} (expected {run.expected_exit})",
    )
    if not manifest.capabilities.structured_events:
        report.add(
            f"{name}: no events",
            not run.lines,
            "structured_events is false: the execution log stays empty (LR-187)",
        )
        return
    report.add(
        f"{name}: only events on the event stream",
        run.invalid == 0,
        f"{len(run.lines)} lines, all valid events (diagnostics go to stderr)"
        if run.invalid == 0
        else f"{run.invalid} invalid lines; first: {run.first_invalid}",
    )
    extras = sorted(
        {
            f"{field_name} (in {decode_event(line).type})"
            for line in run.lines
            if _decodes(line)
            for field_name in unknown_fields(line, decode_event(line))
        }
    )
    report.add(
        f"{name}: protocol fields only",
        not extras,
        "every field is part of the protocol" if not extras else f"unknown: {', '.join(extras)}",
    )
    report.add(
        f"{name}: source keys unique",
        run.duplicates == 0,
        "no key repeated" if run.duplicates == 0 else f"{run.duplicates} repeated keys",
    )
    if not manifest.capabilities.usage:
        has_usage = bool(run.recorder.usage)
        report.add(
            f"{name}: usage",
            not has_usage,
            "none (not declared)" if not has_usage else "usage events although usage is false",
        )
    if not run.recorder.messages:
        report.add(f"{name}: messages", False, "the adapter reported no run message")


def _decodes(line: bytes) -> bool:
    try:
        decode_event(line)
    except ValueError:
        return False
    return True


def _check_hub(report: KitReport, hub: StubHub) -> None:
    refused = [r for r in hub.requests if r["status"] != 200]
    report.add(
        "hub use",
        not refused,
        f"{len(hub.requests)} requests, all with the run token and allowed"
        if not refused
        else "refused: " + ", ".join(f"{r['method']} {r['path']} → {r['status']}" for r in refused),
    )


def _check_stability(report: KitReport, first: KitRunRecord, second: KitRunRecord) -> None:
    a, b = first.keys(), second.keys()
    detail = f"{len(a)} messages with the same keys in both runs"
    if a != b:
        only_a = [k for k in a if k not in b][:3]
        only_b = [k for k in b if k not in a][:3]
        detail = f"run 1 only: {only_a or '-'}; run 2 only: {only_b or '-'}"
    report.add("keys stable across identical runs", a == b and bool(a), detail)


def _check_handoff(report: KitReport, bound: KitRunRecord, cancelled: KitRunRecord | None) -> None:
    report.add(
        "handoff_ready sent",
        bool(bound.handoffs),
        f"{len(bound.handoffs)} handoff_ready"
        if bound.handoffs
        else "the discussion run never reached the implement-plan action (see the spec's "
        "discussion steps)",
    )
    if not bound.handoffs:
        return
    delivered = [d for d in bound.decisions if '"bound"' in d]
    report.add(
        "handoff_decision delivered",
        bool(delivered),
        delivered[0] if delivered else "no decision frame reached the adapter",
    )
    if cancelled is not None:
        ended = cancelled.exit_code == cancelled.expected_exit and cancelled.problem is None
        report.add(
            "exit after a cancelled handoff",
            ended and bool(cancelled.handoffs),
            f"exit {cancelled.exit_code}" + (f"; {cancelled.problem}" if cancelled.problem else ""),
        )


def check_plugin(folder: Path, spec: KitSpec | None = None) -> KitReport:
    """Manifest checks plus the adapter runs (see the module docstring)."""
    spec = spec or KitSpec()
    report = check_manifest(folder)
    manifest = report.manifest
    if manifest is None or not report.ok:
        return report
    hub = StubHub()
    model: FakeModelServer | None = None
    with tempfile.TemporaryDirectory(prefix="hangar-kit-") as root:
        if spec.scenario is not None:
            model = FakeModelServer(Path(root) / "requests.jsonl")
            model.start()
        work = Path(root) / "work"
        try:
            kwargs: dict[str, Any] = {"work": work, "hub": hub, "model": model}
            runs = [
                _run_adapter(manifest, spec, spec.issue, label=f"issue run {n}", mode="issue",
                             binding=HandoffBinding(KIT_ISSUE["id"], KIT_ISSUE["key"],
                                                    KIT_RUN_ID), **kwargs)
                for n in (1, 2)
            ]  # fmt: skip
            discussion: Sequence[KitRunRecord] = ()
            if manifest.protocol == PROTOCOL_V2:
                plan = spec.discussion or spec.issue
                bound = HandoffBinding(KIT_ISSUE["id"], KIT_ISSUE["key"], KIT_DISCUSSION_RUN_ID)
                discussion = [
                    _run_adapter(manifest, spec, plan, label="discussion run", mode="discussion",
                                 binding=bound, **kwargs)
                ]  # fmt: skip
                if manifest.capabilities.native_plan_handoff:
                    discussion = [
                        *discussion,
                        _run_adapter(manifest, spec, plan, label="cancelled discussion",
                                     mode="discussion", binding=None, **kwargs),
                    ]  # fmt: skip
        finally:
            hub.close()
            if model is not None:
                model.close()
    report.runs = [*runs, *discussion]
    for run in [*runs, discussion[0]] if discussion else runs:
        _check_run(report, run, manifest)
    if manifest.capabilities.structured_events:
        _check_stability(report, runs[0], runs[1])
    if manifest.capabilities.usage:
        counted = sum(len(run.recorder.usage) for run in report.runs)
        report.add("usage", counted > 0, f"{counted} usage events" if counted else "none written")
    _check_hub(report, hub)
    if manifest.capabilities.native_plan_handoff and discussion:
        _check_handoff(report, discussion[0], discussion[1] if len(discussion) > 1 else None)
    return report
