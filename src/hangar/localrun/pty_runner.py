"""Run an agent CLI in a real pseudo-terminal inside the user's own terminal.

:class:`PtyRunner` is the seam: :class:`TerminalPtyRunner` is the real thing,
:class:`ScriptedPtyRunner` runs a Python callable instead of a process (for provider tests
that do not need a terminal).

Contract of :meth:`TerminalPtyRunner.run`:

- the child gets a new session whose controlling terminal is a fresh PTY sized like the user's
  terminal (80x24 when there is none); SIGWINCH re-sizes it;
- when stdin is a terminal it is put in raw mode and every keystroke is forwarded; otherwise
  the child still gets a PTY and nothing is forwarded;
- SIGINT, SIGTERM and SIGHUP received by hangar are forwarded to the child's process group;
- the return value is the child's exit code (killed by signal N: ``128 + N``);
- the user's terminal settings and the previous signal handlers are restored on every way
  out (normal exit, exception, forwarded Ctrl+C or kill);
- with ``commands`` that hold at least one ``/hangar…`` command and a terminal on stdin, the
  bytes go through the terminal engine (:mod:`hangar.localrun.terminal`: inline menu, issue
  card, notice) instead of being copied as they are; without commands nothing changes.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import select
import shutil
import signal
import struct
import subprocess
import termios
import threading
import tty
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, ClassVar, Protocol

from hangar.errors import HangarError

if TYPE_CHECKING:
    from hangar.localrun.terminal.commands import CommandRegistry

FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
DEFAULT_SIZE = (24, 80)


@dataclass(eq=False)
class CliNotFoundError(HangarError):
    """The agent CLI named after ``--`` cannot be started."""

    executable: str = ""
    problem: str = ""
    code: ClassVar[str] = "cli_not_found"

    def render(self) -> str:
        return f"cannot start {self.executable!r}: {self.problem}"


@dataclass(frozen=True)
class ChildCommand:
    argv: Sequence[str]
    cwd: Path
    env: Mapping[str, str]
    pass_fds: tuple[int, ...] = ()
    """File descriptors handed to the child under the same numbers (e.g. a plugin's event
    pipe); the runner closes the parent's copies once the child has started."""


class PtyRunner(Protocol):
    def check(self, command: ChildCommand) -> None:
        """Raise :class:`CliNotFoundError` unless ``command`` can be started (called before a
        run is created, so a CLI that cannot start leaves the issue untouched)."""
        ...

    def run(self, command: ChildCommand) -> int:
        """Run ``command`` to its end in a terminal; return its exit code."""
        ...


def locate_executable(command: ChildCommand) -> str:
    """The file ``command.argv[0]`` starts: looked up on the command's ``PATH`` when it has no
    ``/``, else relative to its working directory. Raises :class:`CliNotFoundError` when there
    is none, or when it is not an executable file."""
    name = str(command.argv[0])
    if "/" not in name:
        search = command.env.get("PATH", os.defpath)
        found = shutil.which(name, path=search)
        if found is None:
            raise CliNotFoundError(
                executable=name,
                problem="not found on PATH; install it, or give the path to it",
            )
        return found
    path = Path(name)
    if not path.is_absolute():
        path = command.cwd / path
    if not path.exists():
        raise CliNotFoundError(executable=name, problem=f"{path} does not exist")
    if not path.is_file() or not os.access(path, os.X_OK):
        raise CliNotFoundError(executable=name, problem=f"{path} is not an executable file")
    return str(path)


def exit_code_of(returncode: int) -> int:
    """Shell convention: a child killed by signal N exits ``128 + N``."""
    return 128 - returncode if returncode < 0 else returncode


def window_size(fd: int) -> tuple[int, int] | None:
    try:
        rows, cols, _, _ = struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))
    except OSError:
        return None
    return (rows, cols) if rows and cols else None


def set_window_size(fd: int, size: tuple[int, int]) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", size[0], size[1], 0, 0))


def _take_controlling_tty() -> None:
    """Runs in the child between fork and exec: the PTY (fd 0) becomes its terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            select.select([], [fd], [], 1.0)
            continue
        view = view[written:]


def _read_some(fd: int) -> bytes:
    """Bytes available on ``fd``; ``b""`` at end of file (EIO on a PTY master means EOF)."""
    try:
        return os.read(fd, 65536)
    except OSError as exc:
        if exc.errno in (errno.EIO, errno.EBADF):
            return b""
        raise


@dataclass
class TerminalPtyRunner:
    """The real runner: the user's terminal on ``stdin_fd``/``stdout_fd``."""

    stdin_fd: int = 0
    stdout_fd: int = 1
    on_started: Callable[[int], None] | None = None
    """Called with the child's pid once it runs (its process group id is the same)."""
    commands: CommandRegistry | None = None
    """``/hangar…`` menu commands; None or empty: the terminal is passed through untouched."""

    def check(self, command: ChildCommand) -> None:
        locate_executable(command)

    def run(self, command: ChildCommand) -> int:
        interactive = os.isatty(self.stdin_fd)
        size = window_size(self.stdin_fd if interactive else self.stdout_fd) or DEFAULT_SIZE
        master, slave = os.openpty()
        try:
            set_window_size(master, size)
            try:
                process = subprocess.Popen(
                    list(command.argv),
                    cwd=command.cwd,
                    env=dict(command.env),
                    stdin=slave,
                    stdout=slave,
                    stderr=slave,
                    start_new_session=True,
                    preexec_fn=_take_controlling_tty,
                    pass_fds=command.pass_fds,
                )
            except OSError as exc:
                raise CliNotFoundError(
                    executable=str(command.argv[0]), problem=exc.strerror or str(exc)
                ) from None
        finally:
            os.close(slave)
            _close_all(command.pass_fds)
        if self.on_started is not None:
            self.on_started(process.pid)
        try:
            if interactive and self.commands is not None and not self.commands.empty:
                self._run_with_engine(process, master, size, self.commands)
                return exit_code_of(process.wait())
            with (
                _user_terminal(self.stdin_fd, interactive),
                _forwarded_signals(process.pid, self.stdin_fd if interactive else None, master),
            ):
                self._pump(process, master, interactive)
            return exit_code_of(process.wait())
        finally:
            if process.poll() is None:  # we are leaving on an exception: do not orphan it
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGHUP)
                process.wait()
            os.close(master)

    # -- hook: the terminal engine (menu, card, notice) between the user and the child ------
    def _run_with_engine(
        self,
        process: subprocess.Popen[bytes],
        master: int,
        size: tuple[int, int],
        commands: CommandRegistry,
    ) -> None:
        from hangar.localrun.terminal.clock import SystemClock
        from hangar.localrun.terminal.interposer import Interposer
        from hangar.localrun.terminal.pty_bridge import PtyPorts, ResizeWakeup, pump_with_engine

        clock = SystemClock()
        ports = PtyPorts(self.stdout_fd, master, process.pid)
        # The menu is drawn on stdout: without a terminal there, only Tab and typed commands.
        engine = Interposer(ports, commands, clock, size, menu=os.isatty(self.stdout_fd))
        wakeup = ResizeWakeup()
        try:
            with (
                _user_terminal(self.stdin_fd, True),
                _forwarded_signals(process.pid, self.stdin_fd, master, on_resize=wakeup.record),
            ):
                pump_with_engine(process, master, self.stdin_fd, engine, wakeup, clock)
        finally:
            wakeup.close()

    def _pump(self, process: subprocess.Popen[bytes], master: int, interactive: bool) -> None:
        readers = [master, self.stdin_fd] if interactive else [master]
        output_open = True
        while True:
            try:
                ready, _, _ = select.select(readers, [], [], 0.1)
            except InterruptedError:
                continue
            if master in ready:
                data = _read_some(master)
                if not data:
                    readers.remove(master)
                elif output_open:
                    try:
                        _write_all(self.stdout_fd, data)
                    except BrokenPipeError:
                        output_open = False
            if self.stdin_fd in ready:
                keys = os.read(self.stdin_fd, 4096)
                if keys:
                    _write_all(master, keys)
                else:
                    readers.remove(self.stdin_fd)
            if process.poll() is not None:
                break
            if master not in readers:
                process.wait()
                break
        if output_open:
            _drain(master, self.stdout_fd)


def _close_all(fds: Sequence[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _drain(master: int, stdout_fd: int, limit: int = 4 << 20) -> None:
    """Copy what the child left in the PTY after it ended (bounded: grandchildren may linger)."""
    copied = 0
    while copied < limit:
        ready, _, _ = select.select([master], [], [], 0.05)
        if not ready:
            return
        data = _read_some(master)
        if not data:
            return
        with contextlib.suppress(BrokenPipeError):
            _write_all(stdout_fd, data)
        copied += len(data)


@contextlib.contextmanager
def _user_terminal(fd: int, interactive: bool) -> Iterator[None]:
    """Raw mode for the duration; the saved settings are put back however we leave."""
    if not interactive:
        yield
        return
    saved = termios.tcgetattr(fd)
    try:
        tty.setraw(fd, termios.TCSANOW)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


@contextlib.contextmanager
def _forwarded_signals(
    pgid: int,
    tty_fd: int | None,
    master: int,
    on_resize: Callable[[tuple[int, int]], None] | None = None,
) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # handlers can only be installed on the main thread
        return

    def forward(signum: int, _frame: FrameType | None) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signum)

    def resize(_signum: int, _frame: FrameType | None) -> None:
        size = window_size(tty_fd) if tty_fd is not None else None
        if size is not None and on_resize is not None:
            on_resize(size)  # the terminal engine sizes the child itself
        elif size is not None:
            with contextlib.suppress(OSError):
                set_window_size(master, size)

    previous = {sig: signal.signal(sig, forward) for sig in FORWARDED_SIGNALS}
    previous[signal.SIGWINCH] = signal.signal(signal.SIGWINCH, resize)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@dataclass
class ScriptedPtyRunner:
    """In-memory :class:`PtyRunner`: calls ``script(command)`` instead of starting a process."""

    script: Callable[[ChildCommand], int]
    commands: list[ChildCommand] = field(default_factory=list)

    def check(self, command: ChildCommand) -> None:
        """The script stands in for the executable, so it can always start."""

    def run(self, command: ChildCommand) -> int:
        self.commands.append(command)
        try:
            return self.script(command)
        finally:
            _close_all(command.pass_fds)
