"""A loopback-only sandbox: private network and mount namespaces, a DNS sink, a fake model.

``Sandbox(root)`` starts :mod:`hangar.testing.ns_helper` under ``unshare --net --mount
--propagation private``; the helper brings ``lo`` up, mounts a private ``resolv.conf``
(nameserver 127.0.0.1, answered by the DNS sink) and serves the fake model on loopback. Every
process a test starts (:meth:`Sandbox.spawn`, :meth:`Sandbox.run`, :meth:`Sandbox.spawn_pty`)
joins those namespaces through ``nsenter``, so the only interface it can reach is ``lo``
and the only server there is the fake model. With ``home_mount="/home"`` a directory under
``root`` is bind-mounted over ``/home`` inside the namespace only, so recorded paths look
like a real user's (``/home/demo/...``); :meth:`Sandbox.host_path` maps them back.

:meth:`Sandbox.close` ends every process it started by process group, then any other
process still in the namespace by PID, then the helper; :meth:`namespace_pids` lets a test
assert nothing is left. Needs root and util-linux (``unshare``, ``nsenter``, ``mount``);
:func:`namespace_support` says why not when they are missing.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import functools
import http.client
import json
import os
import pty
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import IO, Any

from hangar.errors import HangarError
from hangar.testing.pty_process import PtyProcess, set_window_size
from hangar.testing.scenarios import Scenario

READY_TIMEOUT = 20.0
CLONE_NEWNET = 0x40000000
TERM_GRACE = 5.0


class SandboxUnavailable(HangarError):
    """Network namespaces cannot be created here (the message says why)."""


@functools.cache
def namespace_support() -> str | None:
    """None when sandboxes work here, else the reason they do not."""
    if not sys.platform.startswith("linux"):
        return "network namespaces need Linux"
    missing = [tool for tool in ("unshare", "nsenter", "mount") if shutil.which(tool) is None]
    if missing:
        return f"util-linux tools missing: {', '.join(missing)}"
    if os.geteuid() != 0:
        return "creating network and mount namespaces needs root (as in CI)"
    probe = subprocess.run(
        ["unshare", "--net", "--mount", "--propagation", "private", "true"],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        return f"unshare --net --mount failed: {probe.stderr.strip()}"
    return None


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _netns_of(pid: int) -> str | None:
    try:
        return str(Path(f"/proc/{pid}/ns/net").readlink())
    except OSError:
        return None


def _take_terminal() -> None:
    """In the PTY child: make the PTY on stdin the controlling terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Sandbox:
    """One loopback-only sandbox rooted at ``root`` (a fresh temp dir); a context manager."""

    def __init__(self, root: Path, *, home_mount: str | None = None) -> None:
        self.root = root
        self.state = root / "state"
        self.home_mount = PurePosixPath(home_mount) if home_mount else None
        self._helper: subprocess.Popen[str] | None = None
        self._netns: str | None = None
        self._started: list[subprocess.Popen[Any]] = []
        self._scenarios = 0
        self.port = 0

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> Sandbox:
        reason = namespace_support()
        if reason is not None:
            raise SandboxUnavailable(reason)
        self.state.mkdir(parents=True, exist_ok=True)
        command = [
            "unshare",
            "--net",
            "--mount",
            "--propagation",
            "private",
            "--",
            sys.executable,
            "-m",
            "hangar.testing.ns_helper",
            "--state",
            str(self.state),
        ]
        if self.home_mount is not None:
            mounted = self.host_root_of_mount()
            mounted.mkdir(parents=True, exist_ok=True)
            command += ["--bind", f"{mounted}:{self.home_mount}"]
        with (self.state / "helper.log").open("ab") as log:
            self._helper = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                start_new_session=True,
            )
        ready = self._read_reply(READY_TIMEOUT)
        self.port = int(ready["port"])
        self._netns = _netns_of(self._helper.pid)
        return self

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read_reply(self, timeout: float) -> dict[str, Any]:
        helper = self._helper
        assert helper is not None and helper.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(helper.stdout, selectors.EVENT_READ)
            if not selector.select(timeout):
                raise SandboxUnavailable(f"sandbox helper silent for {timeout}s: {self._log()}")
        line = helper.stdout.readline()
        if not line:
            raise SandboxUnavailable(f"sandbox helper exited: {self._log()}")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def _log(self) -> str:
        return (self.state / "helper.log").read_text(errors="replace")[-2000:]

    def close(self) -> None:
        """End everything started in the sandbox: our process groups, stragglers, helper."""
        for process in self._started:
            self._end_group(process)
        self._kill_stragglers()
        helper = self._helper
        if helper is not None:
            assert helper.stdin is not None and helper.stdout is not None
            helper.stdin.close()  # EOF: the helper shuts its servers down and exits
            try:
                helper.wait(timeout=TERM_GRACE)
            except subprocess.TimeoutExpired:
                os.killpg(helper.pid, signal.SIGKILL)
                helper.wait()
            helper.stdout.close()
            self._helper = None

    def _end_group(self, process: subprocess.Popen[Any]) -> None:
        """SIGTERM the process group, SIGKILL after a grace period, and close its pipes.

        Signals go to the group only while its leader is not yet reaped, so the group id
        cannot have been reused by anyone else; members that outlive the leader are found
        by namespace in :meth:`_kill_stragglers`."""
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=TERM_GRACE)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()

    def _kill_stragglers(self) -> None:
        """SIGKILL, by PID, any process still in our namespace besides the helper, and wait
        until the kernel has removed them (orphans are reaped by init)."""
        deadline = time.monotonic() + TERM_GRACE
        while pids := self.namespace_pids(include_helper=False):
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            if time.monotonic() > deadline:
                raise HangarError(f"processes {pids} survive SIGKILL in the sandbox")
            time.sleep(0.05)  # waiting for the kernel to reap, not for a race to settle

    def namespace_pids(self, include_helper: bool = True) -> list[int]:
        """PIDs of live processes in this sandbox's network namespace (zombies excluded)."""
        if self._netns is None:
            return []
        helper_pid = self._helper.pid if self._helper else None
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or (int(entry.name) == helper_pid and not include_helper):
                continue
            pid = int(entry.name)
            if _netns_of(pid) == self._netns and not _is_zombie(pid):
                found.append(pid)
        return found

    # -- the fake model ----------------------------------------------------------------
    @property
    def base_url(self) -> str:
        """The fake model server's URL, valid inside the sandbox only."""
        return f"http://127.0.0.1:{self.port}"

    def load(self, scenario: Scenario, restart_ids: bool = False) -> None:
        """Play ``scenario`` from its first turn on the next model request (``restart_ids``:
        reply and tool-call ids count from 1 again)."""
        self._scenarios += 1
        path = self.state / f"scenario-{self._scenarios:03d}.json"
        path.write_text(json.dumps(scenario.raw), encoding="utf-8")
        helper = self._helper
        assert helper is not None and helper.stdin is not None
        command = {"op": "load", "path": str(path), "restart_ids": restart_ids}
        helper.stdin.write(json.dumps(command) + "\n")
        helper.stdin.flush()
        reply = self._read_reply(READY_TIMEOUT)
        if not reply.get("ok"):
            raise HangarError(f"sandbox helper refused scenario: {reply}")

    def requests(self) -> list[dict[str, Any]]:
        """Every request the fake server saw, oldest first (see ``fake_model``)."""
        return _read_jsonl(self.state / "requests.jsonl")

    def dns_queries(self) -> list[dict[str, Any]]:
        """Every DNS query the sink answered (with failure), oldest first."""
        return _read_jsonl(self.state / "dns.jsonl")

    def connect(self, port: int, timeout: float = 10.0) -> socket.socket:
        """A TCP socket connected to ``127.0.0.1:port`` *inside* the sandbox.

        The network namespace is per thread: a short-lived thread joins the sandbox's
        namespace, connects, and hands the socket back; the caller's thread never moves.
        Use it to reach the fake model or a long-lived server (e.g. ``opencode serve``).
        """
        assert self._helper is not None, "sandbox not started"
        netns_path = f"/proc/{self._helper.pid}/ns/net"
        outcome: list[socket.socket | BaseException] = []

        def join_and_connect() -> None:
            try:
                fd = os.open(netns_path, os.O_RDONLY)
                try:
                    if _libc().setns(fd, CLONE_NEWNET) != 0:
                        raise OSError(ctypes.get_errno(), "setns into the sandbox failed")
                finally:
                    os.close(fd)
                outcome.append(socket.create_connection(("127.0.0.1", port), timeout))
            except BaseException as error:  # handed to the caller's thread
                outcome.append(error)

        worker = threading.Thread(target=join_and_connect, name="sandbox-connect")
        worker.start()
        worker.join()
        if isinstance(outcome[0], BaseException):
            raise outcome[0]
        return outcome[0]

    def http(
        self, method: str, port: int, path: str, body: bytes | None = None
    ) -> tuple[int, bytes]:
        """One HTTP request to a server inside the sandbox: ``(status, body)``."""
        connection = http.client.HTTPConnection("127.0.0.1", port)
        connection.sock = self.connect(port)
        try:
            headers = {"Content-Type": "application/json"} if body is not None else {}
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    # -- paths -------------------------------------------------------------------------
    def host_root_of_mount(self) -> Path:
        return self.root / "mounted-home"

    def host_path(self, inside: str | PurePosixPath) -> Path:
        """Where a path seen inside the sandbox lives on the host."""
        path = PurePosixPath(inside)
        if self.home_mount is not None and path.is_relative_to(self.home_mount):
            return self.host_root_of_mount() / path.relative_to(self.home_mount)
        return Path(path)

    # -- processes ---------------------------------------------------------------------
    def _command(self, argv: Sequence[str], cwd: str | PurePosixPath) -> list[str]:
        assert self._helper is not None, "sandbox not started"
        # chdir only after entering the mount namespace (env -C): a cwd set before it would
        # point into the old namespace ("(unreachable)" to getcwd).
        return [
            "nsenter",
            f"--target={self._helper.pid}",
            "--net",
            "--mount",
            "--",
            "env",
            f"--chdir={cwd}",
            *argv,
        ]

    def spawn(
        self,
        argv: Sequence[str],
        *,
        cwd: str | PurePosixPath,
        env: Mapping[str, str],
        stdin: int | IO[Any] | None = subprocess.DEVNULL,
        stdout: int | IO[Any] | None = subprocess.PIPE,
        stderr: int | IO[Any] | None = subprocess.PIPE,
    ) -> subprocess.Popen[bytes]:
        """Start ``argv`` in the sandbox in its own process group (ended by :meth:`close`)."""
        process = subprocess.Popen(
            self._command(argv, cwd),
            env=dict(env),
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
        )
        self._started.append(process)
        return process

    def run(
        self,
        argv: Sequence[str],
        *,
        cwd: str | PurePosixPath,
        env: Mapping[str, str],
        input: bytes | None = None,
        timeout: float = 120.0,
        check: bool = False,
    ) -> subprocess.CompletedProcess[bytes]:
        """Run ``argv`` to completion; stdin is ``input`` or closed (DEVNULL)."""
        stdin = subprocess.PIPE if input is not None else subprocess.DEVNULL
        process = self.spawn(argv, cwd=cwd, env=env, stdin=stdin)
        try:
            out, err = process.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            try:
                out, err = process.communicate(timeout=TERM_GRACE)
            except subprocess.TimeoutExpired:  # a stray descendant still holds the pipes
                err = b"(stderr unavailable)"
            raise TimeoutError(f"{argv[0]} ran over {timeout}s; stderr: {err[-2000:]!r}") from None
        result = subprocess.CompletedProcess(list(argv), process.returncode, out, err)
        if check:
            result.check_returncode()
        return result

    def spawn_pty(
        self,
        argv: Sequence[str],
        *,
        cwd: str | PurePosixPath,
        env: Mapping[str, str],
        rows: int = 40,
        cols: int = 120,
    ) -> PtyProcess:
        """Start ``argv`` on a new PTY (its controlling terminal); drive it via the master."""
        master, slave = pty.openpty()
        set_window_size(master, rows, cols)
        try:
            process = subprocess.Popen(
                self._command(argv, cwd),
                env={"TERM": "xterm-256color", **env},
                stdin=slave,
                stdout=slave,
                stderr=slave,
                start_new_session=True,
                preexec_fn=_take_terminal,
            )
        finally:
            os.close(slave)
        self._started.append(process)
        return PtyProcess(process, master)


def _is_zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # gone
    return stat.rpartition(")")[2].split()[0] == "Z"


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Complete lines only: the server may be appending one while a test reads."""
    if not path.exists():
        return []
    complete = path.read_text(encoding="utf-8").rpartition("\n")[0]
    return [json.loads(line) for line in complete.split("\n") if line]
