"""Running one plugin adapter: its process, its three channels, its events (LR-140, LR-141).

Channels, by ``capabilities.interactive_pty``:

- ``false`` — the adapter runs in its own process group with pipes: NDJSON events on its
  stdout, control frames on its stdin, diagnostics on its stderr (copied into the run's log).
  hangar shows the user a one-line echo of each message. Ctrl+C (SIGINT to hangar) is passed
  on as SIGINT; an adapter still running ``INT_GRACE`` seconds later gets SIGTERM, and
  ``TERM_GRACE`` seconds after that SIGKILL; another Ctrl+C skips to the next step. SIGTERM and
  SIGHUP to hangar are passed on as SIGTERM, with the same SIGKILL step.
- ``true`` — the adapter runs on the user's terminal through the PTY runner (its stdin,
  stdout and stderr are the terminal, Ctrl+C reaches it as a keystroke); events, control
  frames and diagnostics use three extra inherited descriptors whose numbers are in
  ``HANGAR_LOCALRUN_EVENTS_FD``, ``HANGAR_LOCALRUN_CONTROL_FD`` and ``HANGAR_LOCALRUN_LOG_FD``.

In both modes the same variables name the channels (``1``/``0``/``2`` for pipes), so one
adapter can serve both. When the adapter exits, the rest of its process group is sent
SIGTERM, the event stream is read to its end (bounded: see
:meth:`~hangar.localrun.plugins.event_stream.EventReader.read_fd`) and the exit code is
returned (killed by signal N: ``128 + N``).
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TextIO

from hangar.errors import HangarError, UsageError
from hangar.localrun.plugins.environment import Channels, Mode, plugin_env
from hangar.localrun.plugins.event_stream import EventReader, StreamStats, read_chunks
from hangar.localrun.plugins.events import HandoffDecision, HandoffReadyEvent
from hangar.localrun.plugins.handoff import EventTarget, HandoffBinder, HandoffRequest
from hangar.localrun.plugins.manifest import PROTOCOL_V2, PluginManifest
from hangar.localrun.plugins.run_log import RunLog
from hangar.localrun.pty_runner import ChildCommand, CliNotFoundError, PtyRunner, exit_code_of
from hangar.model.run_messages import RunMessage, UsageEntry

EnvFor = Callable[[Channels], dict[str, str]]
INT_GRACE = 5.0
TERM_GRACE = 3.0
ECHO_LIMIT = 300


@dataclass
class SessionOutcome:
    exit_code: int
    stats: StreamStats
    log_path: Path
    session_ids: list[str] = field(default_factory=list)
    signals: list[str] = field(default_factory=list)
    """Signals hangar sent the adapter (``SIGINT``, ``SIGTERM``, ``SIGKILL``), in order."""


class _Control:
    """The write end of the control channel (frames are whole lines, written under a lock)."""

    def __init__(self, fd: int, log: RunLog) -> None:
        self.fd = fd
        self.log = log
        self._lock = threading.Lock()

    def send(self, frame: bytes) -> None:
        with self._lock:
            try:
                view = memoryview(frame)
                while view:
                    view = view[os.write(self.fd, view) :]
            except OSError as exc:
                self.log.note(f"control frame not delivered ({exc.strerror}): {frame!r}")

    def close(self) -> None:
        with self._lock, contextlib.suppress(OSError):
            os.close(self.fd)


class _Dispatch:
    """The :class:`~hangar.localrun.plugins.event_stream.EventHandler` of a session."""

    def __init__(self, session: AdapterSession, control: _Control) -> None:
        self.owner = session
        self.control = control
        self.session_ids: list[str] = []

    def message(self, message: RunMessage) -> None:
        self.owner.echo_message(message)
        self.owner.target.report(message)

    def usage(self, entry: UsageEntry) -> None:
        self.owner.target.add(entry)

    def session(self, session_id: str) -> None:
        self.session_ids.append(session_id)
        if self.owner.on_session is not None:
            self.owner.on_session(session_id)

    def handoff(self, event: HandoffReadyEvent) -> None:
        request = HandoffRequest(
            event.handoff_id,
            event.plan_source_key,
            event.context,
            self.session_ids[-1] if self.session_ids else None,
        )
        binder = self.owner.binder
        try:
            binding = binder.bind(request) if binder is not None else None
        except HangarError as exc:
            self.owner.log.note(f"handoff {event.handoff_id} failed: {exc}")
            binding = None
        if binding is None:
            decision = HandoffDecision(event.handoff_id, "cancelled")
        else:
            decision = HandoffDecision(
                event.handoff_id, "bound", binding.issue_id, binding.issue_key, binding.run_id
            )
        self.owner.log.note(f"handoff_decision {decision.encode().decode().strip()}")
        self.control.send(decision.encode())


class _Escalation:
    """Pass hangar's SIGINT/SIGTERM/SIGHUP on to the adapter's group, escalating on a clock.

    The signal handler only queues the request (``SimpleQueue.put`` is safe in a handler, a
    lock is not: a second Ctrl+C can arrive while the first is being handled); one thread
    sends the signals. They are sent only while the adapter's leader is unreaped (the caller
    waits with ``WNOWAIT``), so the process group id cannot belong to anyone else."""

    STEPS = (signal.SIGINT, signal.SIGTERM, signal.SIGKILL)
    _FINISH = -1
    _EXPIRE = -2

    def __init__(self, pgid: int, log: RunLog) -> None:
        self.pgid = pgid
        self.log = log
        self.sent: list[str] = []
        self._requests: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._work, name="hangar-adapter-signals",
                                        daemon=True)  # fmt: skip
        self._thread.start()

    def _work(self) -> None:
        step = -1
        deadline: float | None = None
        while True:
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                request = self._requests.get(timeout=timeout)
            except queue.Empty:
                request = 0  # the grace period passed: the next step
            if request == self._FINISH:
                return
            if request == self._EXPIRE:
                self.log.note("the adapter ran over its time limit")
                target = max(step + 1, 1)
            elif request in (signal.SIGTERM, signal.SIGHUP):
                target = max(step + 1, 1)
            else:
                target = step + 1
            if target >= len(self.STEPS):
                deadline = None
                continue
            step = target
            sig = self.STEPS[step]
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pgid, sig)
            self.sent.append(sig.name)
            self.log.note(f"sent {sig.name} to the adapter's process group")
            if step + 1 < len(self.STEPS):
                grace = INT_GRACE if sig == signal.SIGINT else TERM_GRACE
                deadline = time.monotonic() + grace
            else:
                deadline = None

    def on_signal(self, signum: int, _frame: FrameType | None) -> None:
        self._requests.put(signum)

    def expire(self) -> None:
        """The run's time limit passed: end the adapter (SIGTERM, then SIGKILL)."""
        self._requests.put(self._EXPIRE)

    def finish(self) -> None:
        """The adapter has exited: send nothing more (call before reaping it)."""
        if self._thread.is_alive():
            self._requests.put(self._FINISH)
            self._thread.join()

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        handled = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        previous = {sig: signal.signal(sig, self.on_signal) for sig in handled}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


class AdapterSession:
    """One run of one adapter (see the module docstring)."""

    def __init__(
        self,
        manifest: PluginManifest,
        *,
        mode: Mode,
        session_id: str,
        target: EventTarget,
        log: RunLog,
        binder: HandoffBinder | None = None,
        runner: PtyRunner | None = None,
        echo: TextIO | None = None,
        observer: Callable[[int, bytes], None] | None = None,
        on_session: Callable[[str], None] | None = None,
    ) -> None:
        self.manifest = manifest
        self.observer = observer
        self.on_session = on_session
        """Told each CLI session id the adapter reports (a discussion is resumed by it)."""
        self.mode = mode
        self.session_id = session_id
        self.target = target
        self.log = log
        self.binder = binder
        self.runner = runner
        self.echo = echo
        self._echo_lock = threading.Lock()
        self._on_terminal = False

    # -- the user's view in pipe mode ------------------------------------------------
    def echo_message(self, message: RunMessage) -> None:
        """Pipe mode only: a TUI adapter owns the screen, hangar writes nothing on it."""
        if self.echo is None or self._on_terminal or message.type == "thinking":
            return
        if message.type in ("tool_use", "tool_result"):
            line = f"[{message.type.replace('_', ' ')}: {message.tool}]"
        else:
            text = " ".join(message.content.split())
            cut = text[:ECHO_LIMIT] + ("…" if len(text) > ECHO_LIMIT else "")
            line = f"{message.type}: {cut}" if message.type != "text" else cut
        with self._echo_lock, contextlib.suppress(OSError, ValueError):
            self.echo.write(line + "\n")
            self.echo.flush()

    # -- running -----------------------------------------------------------------------
    def _reader(self, control: _Control) -> tuple[EventReader, _Dispatch]:
        dispatch = _Dispatch(self, control)
        caps = self.manifest.capabilities
        allow = self.manifest.protocol == PROTOCOL_V2 and caps.native_plan_handoff
        reader = EventReader(
            dispatch,
            self.log,
            provider=self.manifest.name,
            allow_handoff=allow,
            observer=self.observer,
        )
        return reader, dispatch

    def run(
        self,
        args: Sequence[str],
        cwd: Path,
        base_env: Mapping[str, str],
        *,
        issue_title: str | None = None,
        issue_context: str | None = None,
        timeout: float | None = None,
    ) -> SessionOutcome:
        """Run the adapter with the user's ``args`` (after the plugin name) to its end;
        with ``timeout``, an adapter on pipes still running after that many seconds is ended
        as if the user pressed Ctrl+C twice (SIGTERM, then SIGKILL)."""
        argv = [str(self.manifest.command), *args]
        self.log.note(
            f"{self.manifest.name} ({self.manifest.protocol}, {self.mode}) starts: {argv!r} "
            f"in {cwd}"
        )
        interactive = self.manifest.capabilities.interactive_pty
        if interactive and self.runner is None:
            raise UsageError(
                f"{self.manifest.name} is an interactive_pty adapter: it needs a terminal runner"
            )
        self._on_terminal = interactive

        def env_for(channels: Channels) -> dict[str, str]:
            return plugin_env(
                self.manifest,
                base_env,
                mode=self.mode,
                session_id=self.session_id,
                channels=channels,
                issue_title=issue_title,
                issue_context=issue_context,
            )

        if interactive:
            outcome = self._run_on_terminal(argv, cwd, env_for)
        else:
            outcome = self._run_with_pipes(argv, cwd, env_for, timeout)
        self.log.note(f"adapter exited with {outcome.exit_code}")
        return outcome

    def _run_with_pipes(
        self, argv: list[str], cwd: Path, env_for: EnvFor, timeout: float | None
    ) -> SessionOutcome:
        structured = self.manifest.capabilities.structured_events
        control_r, control_w = os.pipe()
        err_r, err_w = os.pipe()
        events_r, events_w = os.pipe() if structured else (-1, -1)
        try:
            process = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env_for(Channels()),
                stdin=control_r,
                stdout=events_w if structured else None,
                stderr=err_w,
                start_new_session=True,
            )
        except OSError as exc:
            for fd in (control_w, err_r, events_r):
                if fd >= 0:
                    os.close(fd)
            raise CliNotFoundError(executable=argv[0], problem=exc.strerror or str(exc)) from None
        finally:
            for fd in (control_r, err_w, events_w):
                if fd >= 0:
                    os.close(fd)
        control = _Control(control_w, self.log)
        reader, dispatch = self._reader(control)
        stop = threading.Event()
        threads = [threading.Thread(target=self._copy_log, args=(err_r, stop), daemon=True)]
        if structured:
            threads.append(
                threading.Thread(target=reader.read_fd, args=(events_r, stop), daemon=True)
            )
        for thread in threads:
            thread.start()
        escalation = _Escalation(process.pid, self.log)
        watchdog = threading.Timer(timeout or 0, escalation.expire)
        watchdog.daemon = True
        if timeout:
            watchdog.start()
        try:
            with escalation.installed():
                _wait_unreaped(process.pid)
            escalation.finish()
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGTERM)  # leftovers of the adapter's group
            code = exit_code_of(process.wait())
        finally:
            watchdog.cancel()
            escalation.finish()
            if process.poll() is None:  # leaving on an exception: do not orphan it
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            stop.set()
            for thread in threads:
                thread.join()
            control.close()
            for fd in (err_r, events_r):
                if fd >= 0:
                    os.close(fd)
        return SessionOutcome(
            code, reader.stats, self.log.path, dispatch.session_ids, escalation.sent
        )

    def _run_on_terminal(self, argv: list[str], cwd: Path, env_for: EnvFor) -> SessionOutcome:
        assert self.runner is not None
        events_r, events_w = os.pipe()
        control_r, control_w = os.pipe()
        log_r, log_w = os.pipe()
        channels = Channels(events=events_w, control=control_r, log=log_w)
        command = ChildCommand(argv, cwd, env_for(channels), (events_w, control_r, log_w))
        control = _Control(control_w, self.log)
        reader, dispatch = self._reader(control)
        stop = threading.Event()
        threads = [
            threading.Thread(target=self._copy_log, args=(log_r, stop), daemon=True),
            threading.Thread(target=reader.read_fd, args=(events_r, stop), daemon=True),
        ]
        for thread in threads:
            thread.start()
        try:
            code = self.runner.run(command)  # closes our copies of the child's ends
        finally:
            stop.set()
            for thread in threads:
                thread.join()
            control.close()
            os.close(events_r)
            os.close(log_r)
        return SessionOutcome(code, reader.stats, self.log.path, dispatch.session_ids)

    def _copy_log(self, fd: int, stop: threading.Event) -> None:
        """Copy the adapter's diagnostics into the run's log (bounded once it has exited)."""
        for chunk in read_chunks(fd, stop):
            self.log.write(chunk)


def _wait_unreaped(pid: int) -> None:
    """Block until process ``pid`` has exited, leaving it unreaped (a zombie)."""
    while True:
        try:
            os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
            return
        except ChildProcessError:
            return
        except InterruptedError:
            continue
