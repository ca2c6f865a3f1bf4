"""The parts the plugin conformance kit runs an adapter with: its spec, a stand-in hub, a
scripted terminal, and recorders for what hangar receives.

A *kit spec* (``kit.json`` in the plugin folder, or ``--spec FILE``) tells the kit how to run
the adapter deterministically::

    {
      "scenario": "shell-roundtrip",          # optional: the fake model plays this (a name of
                                             # hangar.testing.scenarios, a file relative to the
                                             # plugin folder, or an inline mapping)
      "env": {"GROK_BASE_URL": "{model_url}/v1", "HOME": "{tmp}/home"},
      "files": {"{tmp}/home/.cli/config.yaml": "base_url: {model_url}/v1\n"},  # per run
      "issue": {"args": ["RUN: echo hi"], "expect_exit": 0, "timeout": 120,
                "steps": [{"expect": "> $", "send": "hello\\r"}]},   # steps: PTY adapters
      "discussion": {"args": [], "steps": []}   # v2 only; defaults to "issue"
    }

Placeholders in ``env`` values, ``files`` (paths and text), ``args`` and ``send``:
``{model_url}`` (the kit's fake model, ``http://127.0.0.1:PORT``), ``{tmp}`` (a fresh folder
per run), ``{plugin_dir}``. ``files`` are written before each run and must lie inside
``{tmp}``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import select
import signal
import subprocess
import termios
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from hangar.errors import UsageError
from hangar.localrun.plugins.handoff import HandoffBinding, HandoffRequest
from hangar.localrun.pty_runner import (
    ChildCommand,
    exit_code_of,
    locate_executable,
    set_window_size,
)
from hangar.model.run_messages import RunMessage, UsageEntry
from hangar.testing.scenarios import (
    Scenario,
    builtin_scenario,
    load_scenario,
    scenario_from_dict,
)

KIT_ISSUE = {"id": "kit-issue-1", "key": "KIT-1", "title": "Conformance kit issue"}
KIT_RUN_ID = "kit-run-1"
KIT_DISCUSSION_RUN_ID = "kit-run-2"
KIT_SESSION_ID = "kit-discussion-1"
KIT_RUN_TOKEN = "hgrun_kit_0123456789abcdef"


@dataclass(frozen=True)
class KitStep:
    """Wait until ``expect`` (a regex) shows in the adapter's terminal output after the
    previous step's match, then type ``send``."""

    expect: str
    send: str


@dataclass(frozen=True)
class KitRun:
    args: tuple[str, ...] = ()
    steps: tuple[KitStep, ...] = ()
    expect_exit: int = 0
    timeout: float = 120.0


@dataclass(frozen=True)
class KitSpec:
    env: Mapping[str, str] = field(default_factory=dict)
    scenario: Scenario | None = None
    files: Mapping[str, str] = field(default_factory=dict)
    issue: KitRun = field(default_factory=KitRun)
    discussion: KitRun | None = None

    def write_files(self, values: Mapping[str, str]) -> None:
        """Write ``files`` for one run (paths and text expanded with ``values``)."""
        root = Path(values["tmp"]).resolve()
        for name, text in self.files.items():
            target = Path(expand(name, values)).resolve()
            if not target.is_relative_to(root):
                raise UsageError(f"kit file {name} leads outside the run's folder")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(expand(text, values), encoding="utf-8")


def _run_of(raw: Any, where: str) -> KitRun:
    if not isinstance(raw, dict):
        raise UsageError(f"{where}: must be an object")
    unknown = sorted(set(raw) - {"args", "steps", "expect_exit", "timeout"})
    if unknown:
        raise UsageError(f"{where}: unknown field {unknown[0]!r}")
    args = raw.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise UsageError(f"{where}.args: must be a list of strings")
    steps = []
    for index, step in enumerate(raw.get("steps", [])):
        if not isinstance(step, dict) or not {"expect", "send"} <= set(step):
            raise UsageError(f"{where}.steps[{index}]: needs expect and send")
        steps.append(KitStep(str(step["expect"]), str(step["send"])))
    return KitRun(
        tuple(args),
        tuple(steps),
        int(raw.get("expect_exit", 0)),
        float(raw.get("timeout", 120.0)),
    )


def load_kit_spec(path: Path | None, folder: Path) -> KitSpec:
    """Read a kit spec (see the module docstring); ``None`` gives the default spec."""
    if path is None:
        return KitSpec()
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: cannot read the kit spec: {exc}") from None
    if not isinstance(raw, dict):
        raise UsageError(f"{path}: a kit spec is one JSON object")
    unknown = sorted(set(raw) - {"env", "files", "scenario", "issue", "discussion"})
    if unknown:
        raise UsageError(f"{path}: unknown field {unknown[0]!r}")
    env = raw.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise UsageError(f"{path}: env must map names to strings")
    files = raw.get("files", {})
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        raise UsageError(f"{path}: files must map paths to text")
    if not all(str(name).startswith("{tmp}/") for name in files):
        raise UsageError(f"{path}: files must lie inside {{tmp}} (a fresh folder per run)")
    scenario = None
    value = raw.get("scenario")
    if isinstance(value, dict):
        scenario = scenario_from_dict(value, f"{path} scenario")
    elif isinstance(value, str):
        file = folder / value
        scenario = load_scenario(file) if file.is_file() else builtin_scenario(value)
    issue = _run_of(raw.get("issue", {}), f"{path}: issue")
    discussion = _run_of(raw["discussion"], f"{path}: discussion") if "discussion" in raw else None
    return KitSpec(dict(env), scenario, dict(files), issue, discussion)


def expand(text: str, values: Mapping[str, str]) -> str:
    """Replace ``{name}`` placeholders of ``values`` (other braces are left alone)."""
    return re.sub(r"\{(model_url|tmp|plugin_dir)\}", lambda m: values.get(m.group(1), ""), text)


# -- the stand-in hub ----------------------------------------------------------------------
class StubHub:
    """A loopback HTTP server answering what a run-scoped token may read (the kit issue and its
    comments); anything else is 403, a wrong token 401. Every request is recorded."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                auth = self.headers.get("Authorization", "")
                path = self.path.split("?", 1)[0]
                status = 403
                body: dict[str, Any] = {"error": {"code": "forbidden", "message": "run token"}}
                if auth != f"Bearer {KIT_RUN_TOKEN}":
                    status = 401
                    body = {"error": {"code": "unauthorized", "message": "wrong token"}}
                elif self.command == "GET" and path == f"/api/issues/{KIT_ISSUE['key']}":
                    status, body = 200, {**KIT_ISSUE, "description": "", "status": "todo"}
                elif self.command == "GET" and path == f"/api/issues/{KIT_ISSUE['key']}/comments":
                    status, body = 200, {"comments": []}
                outer.requests.append({"method": self.command, "path": path, "status": status})
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _answer

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


# -- a scripted terminal ---------------------------------------------------------------------
def _take_terminal() -> None:
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class KitPtyRunner:
    """A :class:`~hangar.localrun.pty_runner.PtyRunner` that types ``steps`` into the
    adapter's terminal and keeps what it shows; past ``timeout`` it ends the adapter's group."""

    def __init__(self, steps: Sequence[KitStep], timeout: float) -> None:
        self.steps = list(steps)
        self.timeout = timeout
        self.screen = bytearray()
        self.missed: KitStep | None = None
        self.timed_out = False

    def check(self, command: ChildCommand) -> None:
        locate_executable(command)

    def run(self, command: ChildCommand) -> int:
        master, slave = os.openpty()
        set_window_size(master, (40, 120))
        try:
            process = subprocess.Popen(
                list(command.argv),
                cwd=command.cwd,
                env=dict(command.env),
                stdin=slave,
                stdout=slave,
                stderr=slave,
                start_new_session=True,
                preexec_fn=_take_terminal,
                pass_fds=command.pass_fds,
            )
        finally:
            os.close(slave)
            for fd in command.pass_fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
        try:
            self._drive(process, master)
            return exit_code_of(process.wait())
        finally:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            os.close(master)

    def _drive(self, process: subprocess.Popen[bytes], master: int) -> None:
        deadline = time.monotonic() + self.timeout
        steps = list(self.steps)
        position = 0
        while process.poll() is None:
            if time.monotonic() > deadline:
                self.timed_out = True
                self.missed = steps[0] if steps else None
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(3)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                return
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    chunk = b""
                self.screen += chunk
            if steps:
                match = re.search(steps[0].expect.encode(), bytes(self.screen[position:]))
                if match:
                    position += match.end()
                    os.write(master, steps.pop(0).send.encode())
        self.missed = steps[0] if steps else None


# -- what hangar receives -------------------------------------------------------------------
@dataclass
class Recorder:
    """The kit's event target: every message and usage increment, in order."""

    messages: list[RunMessage] = field(default_factory=list)
    usage: list[UsageEntry] = field(default_factory=list)

    def report(self, message: RunMessage) -> None:
        self.messages.append(message)

    def add(self, delta: UsageEntry) -> None:
        self.usage.append(delta)


@dataclass
class KitBinder:
    """Answers handoffs like ``hangar discuss`` would, with the kit's ids (or cancels)."""

    binding: HandoffBinding | None
    requests: list[HandoffRequest] = field(default_factory=list)

    def bind(self, request: HandoffRequest) -> HandoffBinding | None:
        self.requests.append(request)
        return self.binding
