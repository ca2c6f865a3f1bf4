"""The Claude Code provider: native TUI, sessions confirmed by a SessionStart hook (LR-205..220).

One run: a temporary settings file (0600) adds a SessionStart hook (matcher ``*``) that runs
``python -m hangar __claude-session-hook --port N --token T``; that hidden command forwards
the hook's stdin JSON to a hook server on 127.0.0.1:N; the server hands ``session_id`` and
``transcript_path`` to :class:`~hangar.localrun.providers.claude_events.ClaudeTranscriptTracker`,
which reads only those transcripts. Claude runs as ``claude ARGS --settings FILE
--append-system-prompt CONTEXT`` in the user's terminal. The settings file and the hook server
live exactly as long as the CLI process.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shlex
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from hangar.localrun.providers.args import flag_value, has_flag
from hangar.localrun.providers.base import DiscussionHooks, MessageSink, Provider, UsageSink
from hangar.localrun.providers.claude_events import ClaudeTranscriptTracker
from hangar.localrun.pty_runner import ChildCommand

HOOK_PATH = "/hook/session-start"
TOKEN_HEADER = "X-Hangar-Hook-Token"
POLL_INTERVAL = 0.25


def fallback_transcript(env: Mapping[str, str], cwd: str, session_id: str) -> Path:
    """Where Claude keeps a session when the hook names no ``transcript_path``."""
    root = env.get("CLAUDE_CONFIG_DIR") or str(
        Path(env.get("HOME") or "~").expanduser() / ".claude"
    )
    return Path(root) / "projects" / re.sub(r"[^A-Za-z0-9]", "-", cwd) / f"{session_id}.jsonl"


PlanHandler = Callable[[dict[str, Any]], tuple[bytes, Callable[[], None] | None]]
"""Answers a ``PostToolUse`` report (may block): the body for Claude, and what to do once
Claude has it."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a hook still waiting on the card must not hold up the exit


class HookServer:
    """Loopback HTTP server that accepts SessionStart reports carrying the run's secret (and,
    in a discussion, the ``ExitPlanMode`` reports of :mod:`.claude_plan`)."""

    def __init__(
        self,
        tracker: ClaudeTranscriptTracker,
        env: Mapping[str, str],
        cwd: Path,
        *,
        on_session: Callable[[str], None] | None = None,
        plan_path: str = "",
        on_plan: PlanHandler | None = None,
    ) -> None:
        self.token = secrets.token_urlsafe(24)
        self.reports: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                plan = bool(plan_path) and self.path == plan_path and on_plan is not None
                known = self.path == HOOK_PATH or plan
                if not known or self.headers.get(TOKEN_HEADER) != outer.token:
                    self.send_error(403)
                    return
                limit = 1 << 22 if plan else 1 << 20
                length = min(int(self.headers.get("Content-Length") or 0), limit)
                try:
                    payload = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    self.send_error(400)
                    return
                if plan and on_plan is not None and isinstance(payload, dict):
                    body, after = on_plan(payload)
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    self.wfile.flush()
                    if after is not None:
                        after()
                    return
                outer.accept(payload)
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return  # never write into the user's terminal

        self._tracker, self._env, self._cwd = tracker, env, cwd
        self._on_session = on_session
        self._server = _Server(("127.0.0.1", 0), Handler)
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def accept(self, payload: Any) -> None:
        if not isinstance(payload, dict) or not payload.get("session_id"):
            return
        session_id = str(payload["session_id"])
        path_value = payload.get("transcript_path")
        path = (
            Path(str(path_value))
            if path_value
            else fallback_transcript(self._env, str(payload.get("cwd") or self._cwd), session_id)
        )
        self.reports.append(payload)
        self._tracker.follow(session_id, path, str(payload.get("source") or "startup"))
        if self._on_session is not None:
            self._on_session(session_id)

    def start(self) -> HookServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)


def hook_settings(port: int, token: str) -> dict[str, Any]:
    command = shlex.join(
        [sys.executable, "-m", "hangar", "__claude-session-hook", "--port", str(port),
         "--token", token]
    )  # fmt: skip
    hook = {"type": "command", "command": command, "timeout": 30}
    return {"hooks": {"SessionStart": [{"matcher": "*", "hooks": [hook]}]}}


class ClaudeProvider(Provider):
    name = "claude"
    executables = ("claude",)
    owned_flags = ("--settings",)
    supports_discussion = True

    def run(
        self,
        args: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        reporter: MessageSink,
        usage_reporter: UsageSink,
    ) -> int:
        tracker = ClaudeTranscriptTracker(reporter, usage_reporter)
        server = HookServer(tracker, env, cwd).start()
        extra = [] if "--append-system-prompt" in args else ["--append-system-prompt"]
        if extra:
            extra.append(self.issue.prompt())
        return self._session(args, extra, cwd, env, tracker, server, hook_settings)

    def _session(
        self,
        args: Sequence[str],
        extra: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        tracker: ClaudeTranscriptTracker,
        server: HookServer,
        settings_for: Callable[[int, str], dict[str, Any]],
    ) -> int:
        """Claude with the temporary settings file, the tracker polling, the hook server up;
        everything goes away with the CLI process."""
        stop = threading.Event()

        def follow() -> None:
            while not stop.wait(POLL_INTERVAL):
                tracker.poll()

        poller = threading.Thread(target=follow, name="hangar-claude-tracker", daemon=True)
        with tempfile.TemporaryDirectory(prefix="hangar-claude-") as folder:
            settings = Path(folder) / "settings.json"
            fd = os.open(settings, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(settings_for(server.port, server.token), handle)
            argv = [*args, "--settings", str(settings), *extra]
            poller.start()
            try:
                return self.runner.run(ChildCommand(argv, cwd, env))
            finally:
                stop.set()
                poller.join(5)
                server.stop()
                tracker.close()
                self.outcome.active_ms = tracker.active_ms or None
                with contextlib.suppress(OSError):
                    settings.unlink()

    # -- discussions --------------------------------------------------------------------
    @classmethod
    def resume_session_id(
        cls, args: Sequence[str], cwd: Path, env: Mapping[str, str]
    ) -> str | None:
        return flag_value(args, ("--resume", "-r", "--session-id"))

    @classmethod
    def resume_command(cls, args: Sequence[str], session_id: str) -> str | None:
        return shlex.join([args[0], "--resume", session_id])

    def discuss(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], hooks: DiscussionHooks
    ) -> int:
        from hangar.localrun.providers.claude_plan import PlanTap, discussion_settings, plan_hook

        tracker = ClaudeTranscriptTracker(PlanTap(hooks), hooks.sink)
        path, handler = plan_hook(hooks)
        server = HookServer(
            tracker, env, cwd, on_session=hooks.session_started, plan_path=path, on_plan=handler
        ).start()
        given = has_flag(args, "--permission-mode")
        extra = [] if given else ["--permission-mode", "plan"]  # LR-209
        return self._session(args, extra, cwd, env, tracker, server, discussion_settings)
