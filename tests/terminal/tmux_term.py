"""A real terminal for tests: a tmux pane (tmux holds the screen), driven through libtmux.

:class:`TmuxTerminal` starts a private tmux server on its own socket (inside the sandbox when
one is given, so agent CLIs stay in its loopback-only namespace), runs one command in a pane
of the given size, and reads the screen back with ``capture-pane`` — what a user would see,
cursor included. Waiting is for a condition on the screen, with a deadline, never a sleep.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import libtmux

from hangar.testing.sandbox import Sandbox

CONFIG = """\
set -g status off
set -g remain-on-exit on
set -s escape-time 0
"""


def tmux_available() -> bool:
    return shutil.which("tmux") is not None


class TmuxTerminal:
    def __init__(
        self,
        root: Path,
        argv: Sequence[str],
        env: Mapping[str, str],
        *,
        rows: int = 30,
        columns: int = 100,
        sandbox: Sandbox | None = None,
    ) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.socket = root / "tmux.sock"
        config = root / "tmux.conf"
        config.write_text(CONFIG, encoding="utf-8")
        # The pane's environment, spelled out: tmux gives panes its own TERM and may keep
        # a server's older environment.
        pane_env = [f"{k}={v}" for k, v in {**env, "TERM": "xterm-256color"}.items()]
        command = ["tmux", "-S", str(self.socket), "-f", str(config), "new-session", "-d",
                   "-s", "t", "-x", str(columns), "-y", str(rows),
                   shlex.join(["env", *pane_env, *argv])]  # fmt: skip
        if sandbox is not None:
            sandbox.run(command, cwd="/", env=env, check=True)
        else:
            subprocess.run(command, env=dict(env), check=True, timeout=30)
        self.server = libtmux.Server(socket_path=str(self.socket))
        self.pane = self.server.sessions[0].windows[0].panes[0]

    # -- reading --------------------------------------------------------------------------
    def lines(self, escapes: bool = False) -> list[str]:
        flags = ["-p", "-e"] if escapes else ["-p"]
        out = self.pane.cmd("capture-pane", *flags).stdout
        rows = self.size()[0]
        return [*out, *[""] * (rows - len(out))][:rows]

    def text(self) -> str:
        return "\n".join(self.lines())

    def cursor(self) -> tuple[int, int]:
        """0-based ``(row, column)`` as tmux reports it."""
        y, x = self.pane.cmd("display-message", "-p", "#{cursor_y} #{cursor_x}").stdout[0].split()
        return int(y), int(x)

    def size(self) -> tuple[int, int]:
        h, w = (
            self.pane.cmd("display-message", "-p", "#{pane_height} #{pane_width}").stdout[0].split()
        )
        return int(h), int(w)

    def dead(self) -> bool:
        return self.pane.cmd("display-message", "-p", "#{pane_dead}").stdout[0] == "1"

    def wait_for(
        self, condition: Callable[[list[str]], object], what: str, timeout: float = 30.0
    ) -> list[str]:
        deadline = time.monotonic() + timeout
        while True:
            lines = self.lines()
            if condition(lines):
                return lines
            if time.monotonic() > deadline:
                screen = "\n".join(lines)
                raise AssertionError(f"timed out after {timeout}s waiting for {what}:\n{screen}")
            time.sleep(0.05)  # polling interval of a condition, not a timing assumption

    def wait_text(self, text: str, timeout: float = 30.0) -> list[str]:
        return self.wait_for(lambda lines: any(text in line for line in lines), repr(text), timeout)

    def wait_screen(self, expected: list[str], what: str, timeout: float = 30.0) -> list[str]:
        """Wait until the screen equals ``expected``; on timeout name the rows that differ."""
        try:
            return self.wait_for(lambda lines: lines == expected, what, timeout)
        except AssertionError as timed_out:
            now = self.lines()
            pairs = enumerate(zip(expected, now, strict=False))
            rows = [f"row {i}: expected {a!r}, got {b!r}" for i, (a, b) in pairs if a != b]
            raise AssertionError(f"{timed_out}\ndiffering rows:\n" + "\n".join(rows)) from None

    def wait_gone(self, text: str, timeout: float = 30.0) -> list[str]:
        return self.wait_for(
            lambda lines: all(text not in line for line in lines), f"{text!r} gone", timeout
        )

    # -- typing ---------------------------------------------------------------------------
    def type(self, text: str) -> None:
        self.pane.cmd("send-keys", "-l", text)

    def key(self, *names: str) -> None:
        """tmux key names: ``Enter``, ``Escape``, ``Tab``, ``BTab``, ``Up``, ``BSpace``, ``C-c``."""
        self.pane.cmd("send-keys", *names)

    def resize(self, rows: int, columns: int) -> None:
        self.server.cmd("resize-window", "-t", "t", "-x", str(columns), "-y", str(rows))

    def close(self) -> None:
        if self.socket.exists():
            self.server.kill()

    def __enter__(self) -> TmuxTerminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
