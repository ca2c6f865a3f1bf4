"""The OpenCode provider: ``opencode serve`` as a sidecar, the TUI attached, the bus read.

One run: ``opencode serve --port P --hostname 127.0.0.1`` (a sidecar in its own process
group, with a per-run password in ``OPENCODE_SERVER_PASSWORD``); hangar connects to its
``GET /global/event`` stream (server-sent events of every project instance of that
process's bus) *before* the TUI starts, so no event is missed; then the TUI runs in the
user's terminal as ``opencode attach http://127.0.0.1:P --dir DIR …`` — the TUI exactly as
usual. Every event goes to :class:`~hangar.localrun.providers.opencode_events.OpenCodeBusMapper`
(LR-175). The bus carries only this server's sessions, so an OpenCode started in another
terminal in the same folder is never seen (LR-173); ``/new`` and switching sessions in the
TUI are followed as their events arrive. When the TUI exits the reader stops and the
server's process group is ended (SIGTERM, SIGKILL after 2 s).

The user's command keeps its meaning: ``opencode [DIR] [-c|--continue] [-s|--session ID]
[--fork]`` map to the same options of ``attach``; ``-m/--model`` and ``--agent`` become the
server's ``model``/``default_agent`` config. The issue context is an instructions file
(``instructions`` of ``OPENCODE_CONFIG_CONTENT``, merged with the user's own value), removed
at the end. Refused: ``--port``, ``--hostname``, ``--mdns``, ``--prompt`` and the
subcommands that are not the TUI (``serve``, ``run``, ``attach``, ``acp``, ``web``, …).
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from hangar.errors import UsageError
from hangar.localrun.providers.base import MessageSink, Provider, UsageSink
from hangar.localrun.providers.opencode_events import OpenCodeBusMapper
from hangar.localrun.pty_runner import ChildCommand
from hangar.localrun.sidecar import Sidecar, SidecarError, free_loopback_port

RECONNECT_SECONDS = 0.2
CONNECT_TIMEOUT = 120.0  # a new server answers its first request once its project is loaded
START_TIMEOUT = 180.0  # a first start migrates its database: minutes on a loaded machine
START_ATTEMPTS = 3
HEALTH_REQUEST_SECONDS = 2.0


class BusReader:
    """Follow one OpenCode server's ``/event`` stream on a thread until :meth:`stop`."""

    def __init__(self, url: str, mapper: OpenCodeBusMapper, password: str) -> None:
        self.url = url
        self.mapper = mapper
        self.connected = threading.Event()
        self._stop = threading.Event()
        self._client = httpx.Client(
            timeout=httpx.Timeout(5.0, read=None),
            trust_env=False,
            auth=httpx.BasicAuth("opencode", password),
        )
        self._thread = threading.Thread(target=self._loop, name="hangar-opencode-bus", daemon=True)

    def start(self) -> BusReader:
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                with self._client.stream("GET", self.url) as response:
                    for line in response.iter_lines():
                        if line.startswith("data:"):
                            self.connected.set()  # the first event (server.connected) came
                        if self._stop.is_set():
                            return
                        self._line(line)
            except (httpx.HTTPError, OSError):
                pass  # not listening yet, or the TUI went away: try again until stopped
            self._stop.wait(RECONNECT_SECONDS)

    def _line(self, line: str) -> None:
        if not line.startswith("data:"):
            return
        try:
            event = json.loads(line[5:].strip())
        except ValueError:
            return
        if isinstance(event, dict) and isinstance(event.get("payload"), dict):
            event = event["payload"]  # /global/event wraps each bus event with its directory
        if isinstance(event, dict):
            self.mapper.feed(event)

    def stop(self) -> None:
        self._stop.set()
        self._client.close()  # ends a read blocked on the stream
        self._thread.join(5)


def wait_healthy(url: str, password: str, server: Sidecar) -> None:
    """Return once the server answers ``GET /global/health``.

    A server accepts connections before it can answer; a request sent then may never be
    answered, so readiness is polled with short requests, and the event stream (which has no
    read timeout) is opened only after.
    """
    deadline = time.monotonic() + CONNECT_TIMEOUT
    auth = httpx.BasicAuth("opencode", password)
    with httpx.Client(timeout=HEALTH_REQUEST_SECONDS, trust_env=False, auth=auth) as client:
        while True:
            if server.process.poll() is not None:
                raise SidecarError(command="opencode serve", problem=server.log_tail())
            try:
                if client.get(url).status_code == 200:
                    return
            except httpx.HTTPError:
                pass  # still loading its project
            if time.monotonic() > deadline:
                raise SidecarError(command="opencode serve", problem="never became healthy")
            time.sleep(RECONNECT_SECONDS)


def config_content(env: Mapping[str, str], instructions: Path, extra: Mapping[str, str]) -> str:
    """``OPENCODE_CONFIG_CONTENT`` with hangar's instructions file added to the user's (and
    the model or agent the command line chose)."""
    try:
        config: Any = json.loads(env.get("OPENCODE_CONFIG_CONTENT") or "{}")
    except ValueError:
        config = {}
    if not isinstance(config, dict):
        config = {}
    existing = config.get("instructions")
    config["instructions"] = [*(existing if isinstance(existing, list) else []), str(instructions)]
    config.update(extra)
    return json.dumps(config)


_VALUE_FLAGS = {
    "-s": "--session",
    "--session": "--session",
    "-m": "--model",
    "--model": "--model",
    "--agent": "--agent",
    "--log-level": "--log-level",
}
_BARE_FLAGS = {"-c": "--continue", "--continue": "--continue", "--fork": "--fork",
               "--pure": "--pure", "--print-logs": "--print-logs", "--mini": "--mini"}  # fmt: skip


@dataclass
class TuiOptions:
    """The user's ``opencode`` command line, read as the TUI's options."""

    project: str | None = None
    attach: list[str] = field(default_factory=list)
    config: dict[str, str] = field(default_factory=dict)


def parse_tui_args(args: Sequence[str]) -> TuiOptions:
    options = TuiOptions()
    rest = list(args[1:])
    while rest:
        arg = rest.pop(0)
        flag, has_value, inline = arg.partition("=")
        if flag in _BARE_FLAGS:
            options.attach.append(_BARE_FLAGS[flag])
        elif flag in _VALUE_FLAGS:
            if not has_value and not rest:
                raise UsageError(f"`{flag}` needs a value")
            value = inline if has_value else rest.pop(0)
            name = _VALUE_FLAGS[flag]
            if name == "--model":
                options.config["model"] = value
            elif name == "--agent":
                options.config["default_agent"] = value
            else:
                options.attach += [name, value]
        elif arg.startswith("-"):
            raise UsageError(
                f"`{flag}` is not supported with `hangar run -- opencode` (the TUI attaches to "
                "hangar's server: supported are DIR, -c, -s ID, --fork, -m MODEL, --agent NAME)"
            )
        elif options.project is None:
            options.project = arg
        else:
            raise UsageError(f"`opencode {arg}` runs no TUI hangar can follow")
    return options


class OpenCodeProvider(Provider):
    name = "opencode"
    executables = ("opencode",)
    owned_flags = ("--port", "--hostname", "--mdns", "--mdns-domain", "--prompt")
    subcommands = ("serve", "web", "acp", "run", "attach", "mcp", "session", "export", "import",
                   "agent", "providers", "auth", "models", "stats", "github", "pr", "plugin",
                   "db", "debug", "upgrade", "uninstall", "completion")  # fmt: skip

    def validate(self, args: Sequence[str]) -> None:
        super().validate(args)
        if len(args) > 1 and args[1] in self.subcommands:
            raise UsageError(
                f"`opencode {args[1]}` runs no TUI hangar can follow; use `hangar run ISSUE -- "
                "opencode [DIR] [--session ID | --continue] …`"
            )
        parse_tui_args(args)

    def run(
        self,
        args: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        reporter: MessageSink,
        usage_reporter: UsageSink,
    ) -> int:
        exe = args[0]  # exactly as the user gave it (LR-123)
        options = parse_tui_args(args)
        project = str((cwd / options.project).resolve()) if options.project else str(cwd)
        mapper = OpenCodeBusMapper(reporter, usage_reporter)
        password = secrets.token_urlsafe(24)
        with tempfile.TemporaryDirectory(prefix="hangar-opencode-") as folder:
            instructions = Path(folder) / "hangar-issue.md"
            fd = os.open(instructions, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(self.issue.prompt() + "\n")
            child_env = {
                **env,
                "OPENCODE_CONFIG_CONTENT": config_content(env, instructions, options.config),
                "OPENCODE_SERVER_PASSWORD": password,
            }
            server, port = self._start_server(exe, Path(project), child_env)
            reader = BusReader(f"http://127.0.0.1:{port}/global/event", mapper, password)
            try:
                wait_healthy(f"http://127.0.0.1:{port}/global/health", password, server)
                reader.start()
                if not reader.connected.wait(CONNECT_TIMEOUT):
                    raise SidecarError(command="opencode serve", problem="no event stream")
                argv = [exe, "attach", f"http://127.0.0.1:{port}", "--dir", project,
                        *options.attach]  # fmt: skip
                return self.runner.run(ChildCommand(argv, cwd, child_env))
            finally:
                reader.stop()
                server.stop()
                mapper.close()

    def _start_server(self, exe: str, cwd: Path, env: Mapping[str, str]) -> tuple[Sidecar, int]:
        last: SidecarError | None = None
        for _ in range(START_ATTEMPTS):  # a port can be taken between probe and bind
            port = free_loopback_port()
            argv = [exe, "serve", "--port", str(port), "--hostname", "127.0.0.1"]
            sidecar = Sidecar(argv, cwd, env)
            try:
                sidecar.wait_for_port(port, timeout=START_TIMEOUT)
            except SidecarError as exc:
                sidecar.stop()
                last = exc
                continue
            return sidecar, port
        assert last is not None
        raise last
