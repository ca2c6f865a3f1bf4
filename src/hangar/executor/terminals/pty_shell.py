"""One interactive shell in a real PTY on this device, read by a thread of its own.

Contract of :class:`PtyShell`:

- the shell runs in a new session whose controlling terminal is a fresh PTY of the asked
  size, in ``cwd``, with the executor's environment minus hangar's own secrets
  (``HANGAR_TOKEN``) and with ``TERM=xterm-256color``;
- every byte it writes reaches ``on_output`` in order, on the reader thread; when it ends,
  ``on_exit(code)`` is called once (killed by signal N: ``128 + N``);
- :meth:`write` hands input to the PTY within ``timeout`` or raises :class:`InputTimeout`
  (a shell that reads nothing never blocks the caller for long);
- :meth:`close` hangs the shell up (SIGHUP to its process group, SIGKILL when it does not
  go), waits for the reader and releases the PTY; it is idempotent.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import pwd
import select
import signal
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

SECRET_VARIABLES = frozenset({"HANGAR_TOKEN"})
HANGUP_GRACE = 2.0
FLOW_POLL = 0.02
"""How often a held terminal checks whether it may read again (seconds)."""
READ_CHUNK = 65536


class InputTimeout(Exception):
    """The PTY did not take the input in time (the program in it reads nothing)."""


def default_shell(environ: Mapping[str, str]) -> str:
    """``$SHELL`` when it is an executable absolute path, else the user's login shell."""
    for candidate in (environ.get("SHELL", ""), _login_shell()):
        if candidate.startswith("/") and os.access(candidate, os.X_OK):
            return candidate
    return "/bin/sh"


def _login_shell() -> str:
    try:
        return pwd.getpwuid(os.getuid()).pw_shell or ""
    except KeyError:
        return ""


def shell_environment(environ: Mapping[str, str], cwd: Path) -> dict[str, str]:
    env = {k: v for k, v in environ.items() if k not in SECRET_VARIABLES}
    for name in ("COLUMNS", "LINES"):
        env.pop(name, None)
    env.update(TERM="xterm-256color", COLORTERM="truecolor", PWD=str(cwd))
    return env


def _take_controlling_tty() -> None:
    """Runs in the child between fork and exec: the PTY (fd 0) becomes its terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def exit_code_of(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode


class PtyShell:
    def __init__(
        self,
        argv: list[str],
        cwd: Path,
        env: Mapping[str, str],
        size: tuple[int, int],
        on_output: Callable[[bytes], None],
        on_exit: Callable[[int], None],
        held: Callable[[], bool] = lambda: False,
    ) -> None:
        """Start ``argv`` in a PTY of ``size`` (cols, rows); raises ``OSError`` if it cannot.
        While ``held()`` is true the PTY is not read (the shell's writes wait)."""
        self.on_output = on_output
        self.on_exit = on_exit
        self.held = held
        self._closing = threading.Event()
        self._write_lock = threading.Lock()
        """Guards the master descriptor: held by writes, resizes and its release."""
        self._released = False
        master, slave = os.openpty()
        try:
            self._set_size(master, size)
            self.process = subprocess.Popen(
                argv,
                cwd=cwd,
                env=dict(env),
                stdin=slave,
                stdout=slave,
                stderr=slave,
                start_new_session=True,
                preexec_fn=_take_controlling_tty,
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        self.master = master
        os.set_blocking(master, False)
        self._reader = threading.Thread(
            target=self._read_loop, name=f"terminal-{self.process.pid}", daemon=True
        )
        self._reader.start()

    @property
    def pid(self) -> int:
        return self.process.pid

    @staticmethod
    def _set_size(fd: int, size: tuple[int, int]) -> None:
        cols, rows = size
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def resize(self, cols: int, rows: int) -> None:
        """The PTY's new size; the kernel sends SIGWINCH to the program in front."""
        with self._write_lock, contextlib.suppress(OSError):
            if not self._released:
                self._set_size(self.master, (cols, rows))

    def write(self, data: bytes, timeout: float = 2.0) -> None:
        deadline = time.monotonic() + timeout
        view = memoryview(data)
        with self._write_lock:
            while view:
                if self._closing.is_set() or self._released:
                    raise InputTimeout("the terminal is closing")
                try:
                    written = os.write(self.master, view)
                except BlockingIOError:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise InputTimeout("the terminal takes no input") from None
                    select.select([], [self.master], [], min(remaining, 0.2))
                    continue
                view = view[written:]

    def _read_loop(self) -> None:
        ending_since: float | None = None
        try:
            while True:
                if self._closing.is_set() or self.process.poll() is not None:
                    # Hung up, or the shell is gone while something it started still holds
                    # the PTY: read what is left for a moment, then stop (closing the master
                    # hangs the rest up).
                    ending_since = ending_since or time.monotonic()
                    if time.monotonic() - ending_since > HANGUP_GRACE:
                        break
                elif self.held():
                    self._closing.wait(FLOW_POLL)  # the page is behind: let the shell wait
                    continue
                ready, _, _ = select.select([self.master], [], [], 0.2)
                if not ready:
                    continue
                try:
                    chunk = os.read(self.master, READ_CHUNK)
                except BlockingIOError:
                    continue
                except OSError as exc:  # EIO: every holder of the slave side is gone
                    if exc.errno in (errno.EIO, errno.EBADF):
                        break
                    raise
                if not chunk:
                    break
                self.on_output(chunk)
        finally:
            code = exit_code_of(self._reap())
            with self._write_lock, contextlib.suppress(OSError):
                # Under the lock: a write or resize never reaches a reused descriptor number.
                self._released = True
                os.close(self.master)
            self.on_exit(code)

    def _reap(self) -> int:
        try:
            return self.process.wait(timeout=HANGUP_GRACE)
        except subprocess.TimeoutExpired:
            self._signal(signal.SIGKILL)
            return self.process.wait()

    def _signal(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)

    def close(self) -> None:
        """Hang the shell up and wait until it and the reader are gone."""
        if not self._closing.is_set():
            self._closing.set()
            if self.process.poll() is None:
                self._signal(signal.SIGHUP)
        if threading.current_thread() is not self._reader:
            self._reader.join(timeout=2 * HANGUP_GRACE + 1)
