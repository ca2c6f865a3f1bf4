"""A real ``hangar serve`` and real agent CLIs inside one loopback-only sandbox, for e2e tests.

Everything that talks to the hub (``hangar run``, the agent CLI, its sidecars) runs inside
the sandbox's network namespace, so the hub runs there too. The test reads the hub's API with
a short Python client started inside the namespace (:meth:`SandboxHub.api`).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import pyte

from hangar.testing.agent_clis import CLIS, Homes, agent_clis_dir
from hangar.testing.pty_process import PtyProcess
from hangar.testing.sandbox import Sandbox

HUB_PORT = 18765
USER_TOKEN = "user-secret-token-0123456789abcdef"
_CSI = re.compile(rb"\x1b\[[0-9;?<>=]*[A-Za-z~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Z0-9]")

_CLIENT = """
import json, sys, httpx
method, url, token, body = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
r = httpx.request(method, url, headers={"Authorization": "Bearer " + token},
                  json=json.loads(body) if body else None, timeout=10, trust_env=False)
print(json.dumps({"status": r.status_code, "body": r.json() if r.content else None}))
"""

_PAGE = """
import sys, httpx
url, path, token = sys.argv[1], sys.argv[2], sys.argv[3]
with httpx.Client(base_url=url, timeout=10, trust_env=False) as c:
    c.post("/login", data={"token": token, "next": path})
    r = c.get(path)
    sys.stdout.write(r.text)
"""


def in_dir(cwd: Path, argv: Sequence[str]) -> list[str]:
    """Run ``argv`` in ``cwd`` inside the namespace (a cwd set from outside is unreachable)."""
    return ["sh", "-c", 'cd "$0" && exec "$@"', str(cwd), *argv]


def screen_text(raw: bytes) -> str:
    """Terminal output with escape sequences removed (good enough to find visible words)."""
    return _CSI.sub(b"", raw).decode("utf-8", "replace")


def wait_until(
    condition: Callable[[], Any],
    timeout: float,
    what: str,
    interval: float = 0.3,
    detail: Callable[[], Any] | None = None,
) -> Any:
    """Poll ``condition`` until it returns something truthy or ``timeout`` passes.

    On timeout the error carries ``detail()`` (e.g. the messages so far) for diagnosis.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            extra = f"\n{detail()}" if detail is not None else ""
            raise AssertionError(f"timed out after {timeout}s waiting for {what}{extra}")
        time.sleep(interval)


class SandboxHub:
    """The sandbox, a hub process in it, and an agent home; a context manager."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.sandbox = Sandbox(root / "sandbox")
        self.hub_home = root / "hub-home"
        self.client_home = root / "client-home"
        self.home = root / "home"
        self.work = root / "work"
        for folder in (self.hub_home, self.client_home, self.home, self.work):
            folder.mkdir(parents=True, exist_ok=True)
        self.hub: subprocess.Popen[bytes] | None = None
        self.url = f"http://127.0.0.1:{HUB_PORT}"

    def __enter__(self) -> SandboxHub:
        self.sandbox.start()
        self.start_hub()
        return self

    def __exit__(self, *exc: object) -> None:
        self.sandbox.close()

    # -- hub ------------------------------------------------------------------------------
    def start_hub(self) -> None:
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(self.home),
            "HANGAR_HOME": str(self.hub_home),
            "HANGAR_TOKEN": USER_TOKEN,
        }
        argv = [sys.executable, "-m", "hangar", "serve", "--port", str(HUB_PORT)]
        with (self.root / "hub.log").open("ab") as log:
            self.hub = self.sandbox.spawn(
                in_dir(self.root, argv), cwd="/", env=env, stdout=log, stderr=log
            )
        wait_until(lambda: self.api("GET", "/api/workspace", quiet=True)[0] == 200, 30, "hub")

    def stop_hub(self) -> None:
        """Stop the hub process we started (SIGTERM to its group, as a user's Ctrl-C would)."""
        assert self.hub is not None
        os.killpg(self.hub.pid, 15)
        self.hub.wait(15)
        self.hub = None

    def api(
        self, method: str, path: str, body: Any = None, token: str = USER_TOKEN, quiet: bool = False
    ) -> tuple[int, Any]:
        argv = [sys.executable, "-c", _CLIENT, method, self.url + path, token,
                json.dumps(body) if body is not None else ""]  # fmt: skip
        done = self.sandbox.run(in_dir(self.root, argv), cwd="/", env=dict(os.environ))
        if done.returncode != 0:
            if quiet:
                return 0, None
            raise AssertionError(done.stderr.decode(errors="replace")[-2000:])
        reply = json.loads(done.stdout)
        return int(reply["status"]), reply["body"]

    def page(self, path: str) -> str:
        """A web page as a signed-in browser gets it (logged in with the user's token)."""
        argv = [sys.executable, "-c", _PAGE, self.url, path, USER_TOKEN]
        done = self.sandbox.run(in_dir(self.root, argv), cwd="/", env=dict(os.environ))
        assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
        return done.stdout.decode()

    def ok(self, method: str, path: str, body: Any = None) -> Any:
        status, reply = self.api(method, path, body)
        assert status < 300, (status, reply)
        return reply

    def messages(self, run_id: str) -> list[dict[str, Any]]:
        return list(self.ok("GET", f"/api/local-runs/{run_id}/messages")["messages"])

    def runs(self, key: str) -> list[dict[str, Any]]:
        return list(self.ok("GET", f"/api/issues/{key}/local-runs")["runs"])

    # -- agents ---------------------------------------------------------------------------
    def agent_env(self, name: str) -> dict[str, str]:
        cli = CLIS[name]
        homes = Homes(PurePosixPath(str(self.home)), PurePosixPath(str(self.root / "tmp")))
        (self.root / "tmp").mkdir(exist_ok=True)
        for path, text in cli.config_files(homes, self.sandbox.base_url).items():
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(text, encoding="utf-8")
        bin_dir = agent_clis_dir() / "node_modules" / ".bin"
        env = {
            "PATH": f"{bin_dir}:{Path(sys.executable).parent}:{os.environ['PATH']}",
            "HOME": str(self.home),
            "TERM": "xterm-256color",
            **cli.env(homes, self.sandbox.base_url),
        }
        if name == "claude":
            env["IS_SANDBOX"] = "1"
            self.trust_claude(self.work)
        return env

    def trust_claude(self, *folders: Path) -> None:
        """Pre-answer Claude's first-run screens (onboarding, folder trust, API key)."""
        projects = {
            str(folder): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
            for folder in folders
        }
        config = {
            "hasCompletedOnboarding": True,
            "lastOnboardingVersion": "2.1.332",
            "theme": "dark",
            "projects": projects,
            "customApiKeyResponses": {"approved": ["dummy"], "rejected": []},
        }
        (self.home / ".claude.json").write_text(json.dumps(config), encoding="utf-8")

    def hangar_run(self, key: str, cli_args: Sequence[str], env: Mapping[str, str]) -> PtyProcess:
        """``hangar run KEY -- CLI…`` on a PTY in the sandbox, as the user (their token)."""
        full_env = {
            **env,
            "HANGAR_HOME": str(self.client_home),
            "HANGAR_SERVER_URL": self.url,
            "HANGAR_TOKEN": USER_TOKEN,
        }
        argv = [sys.executable, "-m", "hangar", "run", key, "--", *cli_args]
        return self.sandbox.spawn_pty(in_dir(self.work, argv), cwd="/", env=full_env)


def wait_screen(process: PtyProcess, pattern: str, timeout: float = 60.0) -> None:
    """Wait until ``pattern`` shows on the (escape-stripped) screen output."""
    regex = re.compile(pattern)
    deadline = time.monotonic() + timeout
    while not regex.search(screen_text(bytes(process.output))):
        process.read_available(0.3)
        if time.monotonic() > deadline or process.exited:
            tail = screen_text(bytes(process.output))[-2500:]
            raise AssertionError(f"{pattern!r} not on screen; tail:\n{tail}")


def wait_quiet(process: PtyProcess, quiet: float = 0.5, timeout: float = 30.0) -> None:
    """Wait until the TUI has drawn nothing for ``quiet`` seconds: an Ink TUI (Gemini CLI)
    draws a new input before it listens to it, and keys that arrive in between are lost."""
    deadline = time.monotonic() + timeout
    while process.read_available(quiet):
        if time.monotonic() > deadline:
            raise AssertionError(f"the screen never stayed still for {quiet} s")


def type_like_a_person(process: PtyProcess, text: str, echo: str, timeout: float = 30.0) -> None:
    """Type ``text``, wait for its echo, look at it for a second, then press Enter: for TUIs
    that take keys arriving together for a paste and an Enter right after a paste for a
    new line (Qwen Code)."""
    start = len(process.output)  # bytes: the text of a half-written escape sequence
    process.send(text)  # would shrink once it completes, and a text offset would then skip
    regex = re.compile(echo)
    deadline = time.monotonic() + timeout
    while not regex.search(screen_text(bytes(process.output[start:]))):
        process.read_available(0.2)
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} was not echoed")
    process.read_available(1.0)  # reading the screen, as a person does before Enter
    process.send("\r")


class PtyScreen:
    """What the user of a :class:`PtyProcess` sees: its output through a VT emulator (pyte),
    sized like its terminal.

    A TUI that redraws only the cells that changed (Claude Code) writes a line typed into it
    in as many pieces as the reads it got the keys in, with cursor moves and its own cursor
    block between them; the bytes then never hold the typed text in one piece, the screen
    does."""

    def __init__(self, process: PtyProcess) -> None:
        packed = fcntl.ioctl(process.master_fd, termios.TIOCGWINSZ, bytes(8))
        rows, columns, _, _ = struct.unpack("HHHH", packed)
        self.process = process
        self.screen = pyte.Screen(columns or 80, rows or 24)
        self.stream = pyte.ByteStream(self.screen)
        self.fed = 0

    def text(self) -> str:
        """The screen now, one line per row (what was read so far)."""
        new = bytes(self.process.output[self.fed :])
        self.fed += len(new)
        self.stream.feed(new)
        return "\n".join(line.rstrip() for line in self.screen.display)


def type_line(process: PtyProcess, text: str, echo: str, timeout: float = 30.0) -> None:
    """Type ``text``, wait until the TUI shows it (one more match of the ``echo`` regex on
    its screen than before typing), then press Enter.

    TUIs treat Enter inside a fast burst of keys as part of a paste, so Enter waits for the
    echo: a condition, not a delay. The echo is looked for on the emulated screen, as a
    person sees it, not in the bytes (see :class:`PtyScreen`).
    """
    regex = re.compile(echo)
    screen = PtyScreen(process)
    before = len(regex.findall(screen.text()))
    process.send(text)
    deadline = time.monotonic() + timeout
    while len(regex.findall(screen.text())) <= before:
        process.read_available(0.2)
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} was not echoed; the screen:\n{screen.text()}")
    process.send("\r")


def count(hub: SandboxHub, run_id: str, kind: str, n: int) -> list[dict[str, Any]] | None:
    """The run's messages once at least ``n`` of them are of ``kind``, else None."""
    messages = hub.messages(run_id)
    return messages if sum(m["type"] == kind for m in messages) >= n else None


def standin_env(hub: SandboxHub, executable: str, module: str) -> dict[str, str]:
    """A PATH whose ``executable`` is hangar's stand-in ``module`` (``hangar.testing.…``),
    and the run's own home (its XDG data dir inside it)."""
    bin_dir = hub.root / "standin-bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / executable
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m {module} "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    return {
        "PATH": f"{bin_dir}:{Path(sys.executable).parent}:{os.environ['PATH']}",
        "HOME": str(hub.home),
        "XDG_DATA_HOME": str(hub.home / ".local" / "share"),
        "TERM": "xterm-256color",
    }


@dataclass
class StandinRun:
    """A ``hangar run`` of a stand-in CLI on a new issue, its CLI up and bootstrapped."""

    hub: SandboxHub
    env: dict[str, str]
    issue: dict[str, Any]
    term: PtyProcess
    run: dict[str, Any]

    def diagnose(self) -> str:
        return f"messages: {self.hub.messages(self.run['id'])}"


def standin_run(
    hub: SandboxHub, argv: Sequence[str], module: str, title: str, banner: str
) -> StandinRun:
    """Start ``hangar run ISSUE -- ARGV…`` with ``argv[0]`` as hangar's stand-in ``module`` on
    a new issue ``title``; wait for the stand-in's ``banner`` and for the run's id to reach it
    (the bootstrap)."""
    env = standin_env(hub, argv[0], module)
    issue = hub.ok("POST", "/api/issues", {"title": title})
    term = hub.hangar_run(issue["key"], list(argv), env)
    wait_screen(term, banner, 60)
    run = wait_until(lambda: hub.runs(issue["key"]), 30, "the run")[0]
    wait_screen(term, rf"· run {run['id']}")
    return StandinRun(hub, env, issue, term, run)


def quit_run(term: PtyProcess, line: str = "/quit") -> None:
    """Leave the CLI of a ``hangar run`` and wait until the run says it finished."""
    type_line(term, line, re.escape(line))
    wait_screen(term, r"local run of HGR-\d+ finished", 60)
    assert term.process.wait(30) == 0
