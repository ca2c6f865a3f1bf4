"""Run the real agent CLIs in a sandbox: ``run_agent(...)`` and long-lived processes.

:class:`AgentSandbox` wraps one :class:`~hangar.testing.sandbox.Sandbox` with a home for the
agents (``<root>/home``, or ``/home/<user>`` with ``user=``), a ``TMPDIR``, and the CLIs'
configs pointing at the fake model. Each call of :meth:`AgentSandbox.run_agent` loads a
scenario, prepares the working directory the scenario asks for (a plain folder, a git
repository with a commit, or a git worktree of one), runs one CLI non-interactively and
returns an :class:`AgentRun`. Sessions continue with ``resume=True`` (the CLI's last session
in this sandbox) or ``resume="<session id>"``.

For later work the same sandbox starts long-lived processes: :meth:`AgentSandbox.spawn`
(e.g. ``codex app-server`` on stdio pipes, ``opencode serve``), :meth:`AgentSandbox.spawn_pty`
(a CLI on a PTY, driven by keystrokes), and :meth:`Sandbox.connect` (a socket to a port
inside the sandbox, e.g. the fake model or ``opencode serve``).
"""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from hangar.testing.agent_clis import CLIS, Homes
from hangar.testing.pty_process import PtyProcess
from hangar.testing.sandbox import Sandbox
from hangar.testing.scenarios import Scenario, Workspace, builtin_scenario
from hangar.testing.stores import read_jsonl, snapshot, sqlite_rows

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Demo User",
    "GIT_AUTHOR_EMAIL": "demo@example.com",
    "GIT_COMMITTER_NAME": "Demo User",
    "GIT_COMMITTER_EMAIL": "demo@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


@dataclass
class AgentRun:
    """What one non-interactive CLI run did. Paths named ``*_inside`` are as the CLI saw
    them; the others are host paths a test can open."""

    cli: str
    scenario: str
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    events: list[dict[str, Any]]
    home: Path
    agent_home: Path
    cwd: Path
    cwd_inside: PurePosixPath
    store_files: list[Path]
    session_id: str | None
    requests: list[dict[str, Any]]
    dns_queries: list[dict[str, Any]]
    all_store_files: list[Path] = field(default_factory=list)

    def records(self, path: Path) -> list[dict[str, Any]]:
        """The JSON lines (or single JSON document) of one store file."""
        if path.suffix == ".jsonl":
            return read_jsonl(path)
        document = json.loads(path.read_text(encoding="utf-8"))
        return [document] if isinstance(document, dict) else list(document)

    def opencode_rows(self, table: str) -> list[dict[str, Any]]:
        """Rows of one ``opencode.db`` table (``session``, ``message``, ``part``, ``todo``)."""
        db = next(p for p in self.all_store_files if p.name == "opencode.db")
        return sqlite_rows(db, table)


class AgentSandbox:
    """A sandbox prepared for the agent CLIs; close it (or use ``with``) to end everything."""

    def __init__(self, root: Path, *, user: str | None = None) -> None:
        self.sandbox = Sandbox(root, home_mount="/home" if user else None)
        inside_home = PurePosixPath(f"/home/{user}") if user else PurePosixPath(root / "home")
        self.homes = Homes(home=inside_home, tmp=PurePosixPath(root / "tmp"))
        self._configured: set[str] = set()
        self._last_session: dict[str, str] = {}

    def __enter__(self) -> AgentSandbox:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        self.sandbox.start()
        self.host(self.homes.home).mkdir(parents=True, exist_ok=True)
        self.host(self.homes.tmp).mkdir(parents=True, exist_ok=True)

    def close(self) -> None:
        self.sandbox.close()

    def host(self, inside: str | PurePosixPath) -> Path:
        return self.sandbox.host_path(inside)

    # -- environment -------------------------------------------------------------------
    def env(self, cli: str) -> dict[str, str]:
        """The full environment for ``cli`` (nothing inherited but a minimal ``PATH``);
        writes the CLI's config files on first use."""
        agent = CLIS[cli]
        base_url = self.sandbox.base_url
        if cli not in self._configured:
            for folder in agent.directories(self.homes):
                self.host(folder).mkdir(parents=True, exist_ok=True)
            for path, text in agent.config_files(self.homes, base_url).items():
                target = self.host(path)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
            self._configured.add(cli)
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.homes.home),
            "TMPDIR": str(self.homes.tmp),
            "LANG": "C.UTF-8",
            "USER": self.homes.home.name,
            **GIT_ENV,
        }
        return {**env, **agent.env(self.homes, base_url)}

    def offer_codex_model(self, slug: str = "fake-model") -> Path:
        """Make Codex list ``slug`` in its model catalog (``model/list``), as a real catalog
        entry: the CLI's own first entry (``codex debug models``) under the fake name, written
        to ``model_catalog_json``. Returns the catalog file."""
        env = self.env("codex")
        done = self.sandbox.run(
            [CLIS["codex"].executable(), "debug", "models"], cwd=self.homes.home, env=env
        )
        if done.returncode != 0:
            raise RuntimeError(f"codex debug models failed: {done.stderr[-500:]!r}")
        catalog = json.loads(done.stdout)
        entry = {
            **catalog["models"][0],
            "slug": slug,
            "display_name": slug,
            "visibility": "list",
            # The fallback metadata's tool set (what an unlisted model gets), not the
            # hosted models' code-mode and deferred tools the fake model cannot play.
            "supports_search_tool": False,
            "use_responses_lite": False,
            "experimental_supported_tools": [],
        }
        for key in ("tool_mode", "multi_agent_version", "multi_agent_reasoning_effort"):
            entry.pop(key, None)
        home = self.homes.home / ".codex"
        path = home / "fake_catalog.json"
        self.host(path).write_text(json.dumps({"models": [entry]}), encoding="utf-8")
        config = self.host(home / "config.toml")
        text = config.read_text(encoding="utf-8")
        if "model_catalog_json" not in text:
            config.write_text(f'model_catalog_json = "{path}"\n' + text, encoding="utf-8")
        return self.host(path)

    # -- working directories -----------------------------------------------------------
    def git(self, args: Sequence[str], cwd: PurePosixPath) -> None:
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(self.homes.home), **GIT_ENV}
        self.sandbox.run(["git", *args], cwd=cwd, env=env, check=True)

    def workspace(self, path: str | PurePosixPath, spec: Workspace) -> PurePosixPath:
        """Create the working directory ``spec`` asks for at ``path`` (relative to the home)
        and return the directory the CLI should run in (the worktree, if one is asked)."""
        root = self.homes.home / path
        host_root = self.host(root)
        if not host_root.exists():
            host_root.mkdir(parents=True)
            for name, text in spec.files.items():
                (host_root / name).parent.mkdir(parents=True, exist_ok=True)
                (host_root / name).write_text(text, encoding="utf-8")
            if spec.git:
                self.git(["-c", "init.defaultBranch=main", "init", "-q"], root)
                self.git(["add", "-A"], root)
                self.git(["commit", "-q", "--allow-empty", "-m", "Initial commit"], root)
        if spec.worktree is None:
            return root
        tree = root.parent / f"{root.name}.worktrees" / spec.worktree
        if not self.host(tree).exists():
            self.git(["worktree", "add", "-q", "-b", spec.worktree, str(tree)], root)
        return tree

    # -- one-shot runs -----------------------------------------------------------------
    def run_agent(
        self,
        cli: str,
        scenario: Scenario | str,
        prompt: str,
        *,
        cwd: str | PurePosixPath | None = None,
        resume: bool | str = False,
        timeout: float = 180.0,
    ) -> AgentRun:
        """Run ``cli`` once on ``prompt`` while the fake model plays ``scenario`` (an object
        or a built-in scenario name). ``cwd`` defaults to ``projects/<scenario name>`` under
        the home, prepared as the scenario's ``workspace`` says."""
        agent = CLIS[cli]
        play = builtin_scenario(scenario) if isinstance(scenario, str) else scenario
        workdir = self.workspace(cwd or f"projects/{play.name}", play.workspace)
        session = self._last_session.get(cli) if resume is True else (resume or None)
        if resume and session is None:
            raise ValueError(f"no {cli} session to resume in this sandbox")
        env = self.env(cli)
        globs = [(self.host(folder), pattern) for folder, pattern in agent.store_globs(self.homes)]
        before = snapshot(globs)
        seen_requests = len(self.sandbox.requests())
        seen_dns = len(self.sandbox.dns_queries())
        self.sandbox.load(play)
        invocation = agent.invocation(prompt, session, self.homes)
        done = self.sandbox.run(
            invocation.argv, cwd=workdir, env=env, input=invocation.stdin, timeout=timeout
        )
        after = snapshot(globs)
        changed = sorted(path for path, stamp in after.items() if before.get(path) != stamp)
        stdout = done.stdout.decode("utf-8", "replace")
        events = _json_lines(stdout)
        session_id = agent.session_id(events, changed)
        if session_id:
            self._last_session[cli] = session_id
        return AgentRun(
            cli=cli,
            scenario=play.name,
            argv=invocation.argv,
            returncode=done.returncode,
            stdout=stdout,
            stderr=done.stderr.decode("utf-8", "replace"),
            events=events,
            home=self.host(self.homes.home),
            agent_home=self.host(agent.home_dir(self.homes)),
            cwd=self.host(workdir),
            cwd_inside=workdir,
            store_files=changed,
            session_id=session_id,
            requests=self.sandbox.requests()[seen_requests:],
            dns_queries=self.sandbox.dns_queries()[seen_dns:],
            all_store_files=sorted(after),
        )

    # -- long-lived processes ----------------------------------------------------------
    def spawn(
        self,
        cli: str,
        args: Sequence[str],
        *,
        cwd: str | PurePosixPath,
        stdin_pipe: bool = True,
        env: Mapping[str, str] | None = None,
    ) -> subprocess.Popen[bytes]:
        """Start ``cli args…`` (e.g. ``codex app-server``) with pipes for stdin/stdout;
        ``env`` is added to the CLI's sandbox environment."""
        stdin = subprocess.PIPE if stdin_pipe else subprocess.DEVNULL
        argv = [CLIS[cli].executable(), *args]
        return self.sandbox.spawn(argv, cwd=cwd, env={**self.env(cli), **(env or {})}, stdin=stdin)

    def launcher(self) -> SandboxLauncher:
        """An :class:`~hangar.agents.launch.AgentLauncher` that starts the pinned CLIs inside
        this sandbox (for executors whose control facets must reach the real agent)."""
        return SandboxLauncher(self)

    def spawn_pty(
        self,
        cli: str,
        args: Sequence[str],
        *,
        cwd: str | PurePosixPath,
        rows: int = 40,
        cols: int = 120,
    ) -> PtyProcess:
        """Start ``cli args…`` interactively on a PTY (drive it with keystrokes)."""
        argv = [CLIS[cli].executable(), *args]
        return self.sandbox.spawn_pty(argv, cwd=cwd, env=self.env(cli), rows=rows, cols=cols)


def _json_lines(text: str) -> list[dict[str, Any]]:
    events = []
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue  # banners or plain text (cn prints its reply as text)
        if isinstance(value, dict):
            events.append(value)
    return events


class SandboxLauncher:
    """Starts agent CLIs by executable name inside an :class:`AgentSandbox` (its home as cwd)."""

    def __init__(self, sandbox: AgentSandbox) -> None:
        self.sandbox = sandbox

    def _cli(self, executable: str) -> str | None:
        return next((name for name, cli in CLIS.items() if cli.binary == executable), None)

    def which(self, executable: str) -> str | None:
        cli = self._cli(executable)
        return CLIS[cli].executable() if cli is not None else None

    def launch(
        self,
        executable: str,
        args: Sequence[str],
        *,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> subprocess.Popen[bytes] | None:
        cli = self._cli(executable)
        if cli is None:
            return None
        where = str(cwd) if cwd is not None else self.sandbox.homes.home
        return self.sandbox.spawn(cli, args, cwd=where, env=env)

    def connect(self, port: int, timeout: float = 10.0) -> socket.socket:
        return self.sandbox.sandbox.connect(port, timeout)
