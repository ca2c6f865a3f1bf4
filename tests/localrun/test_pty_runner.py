"""The PTY runner on real pseudo-terminals: exit codes, signals, raw mode, terminal restored."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from hangar.localrun.pty_runner import ChildCommand, ScriptedPtyRunner, TerminalPtyRunner

from .ptyterm import PtyTerminal

DRIVER = """
import os, sys
from pathlib import Path
from hangar.localrun.pty_runner import ChildCommand, TerminalPtyRunner
stdout_fd = 1
if os.environ.get("BROKEN_STDOUT"):
    stdout_fd = os.open(os.devnull, os.O_RDONLY)  # writing to it fails: a crash mid-run
code = TerminalPtyRunner(stdout_fd=stdout_fd).run(
    ChildCommand(sys.argv[1:], Path.cwd(), dict(os.environ))
)
print(f"\\r\\nRUNNER-EXIT:{code}", file=sys.stderr)
sys.exit(code)
"""


def driver(*argv: str) -> list[str]:
    return [sys.executable, "-c", DRIVER, *argv]


def test_exit_code_passes_through_and_terminal_restored(tmp_path: Path) -> None:
    """LR-003: the CLI's exit code is the run's; the user's terminal is left as found."""
    with PtyTerminal(driver("sh", "-c", "echo child-ran; exit 7"), cwd=tmp_path) as term:
        before = term.stty()
        assert term.wait() == 7
        term.expect("child-ran")
        term.expect("RUNNER-EXIT:7")
        assert term.stty() == before


def test_raw_mode_while_running_and_keystrokes_forwarded(tmp_path: Path) -> None:
    """Raw mode on the user's terminal during the run; typed bytes reach the child."""
    script = "echo ready; read line; echo got:$line"
    with PtyTerminal(driver("sh", "-c", script), cwd=tmp_path) as term:
        before = term.stty()
        term.expect("ready")
        during = subprocess.run(
            ["stty", "-a"], stdin=term.slave, capture_output=True, text=True, check=True
        ).stdout
        assert "-icanon" in during.split() and "-echo" in during.split()
        term.send("hello\r")
        term.expect("got:hello")
        assert term.wait() == 0
        assert term.stty() == before


def test_ctrl_c_reaches_the_child_as_sigint(tmp_path: Path) -> None:
    """Ctrl+C typed in raw mode becomes SIGINT in the child's PTY; exit 130; tty restored."""
    child = [sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(60)"]
    with PtyTerminal(driver(*child), cwd=tmp_path) as term:
        before = term.stty()
        term.expect("ready")
        term.send(b"\x03")
        assert term.wait() == 130
        assert term.stty() == before


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_signals_are_forwarded_to_the_child_group(tmp_path: Path, sig: signal.Signals) -> None:
    """A kill of hangar reaches the child's process group; exit 128+n; terminal restored."""
    child = ["sh", "-c", "echo ready; sleep 60 & wait"]
    with PtyTerminal(driver(*child), cwd=tmp_path) as term:
        before = term.stty()
        term.expect("ready")
        os.kill(term.process.pid, sig)
        assert term.wait() == 128 + sig
        assert term.stty() == before


def test_crash_restores_the_terminal_and_ends_the_child(tmp_path: Path) -> None:
    """An exception inside the runner still restores the tty and does not orphan the child."""
    pid_file = tmp_path / "child.pid"
    child = ["sh", "-c", f"echo $$ > {pid_file}; echo output; sleep 60"]
    env = dict(os.environ, BROKEN_STDOUT="1")
    with PtyTerminal(driver(*child), cwd=tmp_path, env=env) as term:
        before = term.stty()
        assert term.wait() == 1
        term.expect("Traceback")  # the runner crashed loudly
        assert term.stty() == before
        child_pid = int(pid_file.read_text())
        with pytest.raises(ProcessLookupError):
            os.kill(child_pid, 0)


def test_window_size_and_sigwinch(tmp_path: Path) -> None:
    """The child's PTY starts with the user's size and follows a resize (SIGWINCH)."""
    script = "stty size; trap 'stty size' WINCH; echo ready; until read x; do :; done"
    with PtyTerminal(driver("sh", "-c", script), cwd=tmp_path, size=(33, 101)) as term:
        term.expect("33 101")
        mark = term.expect("ready").end()
        term.resize(50, 132)
        os.kill(term.process.pid, signal.SIGWINCH)  # the kernel sends it too; be explicit
        term.expect("50 132", start=mark)
        term.send("\r")
        assert term.wait() == 0


def test_without_a_terminal_the_child_still_gets_a_pty(tmp_path: Path) -> None:
    """stdin not a TTY (scripts, CI): the CLI still runs on a PTY, no keystrokes forwarded."""
    result = subprocess.run(
        driver("sh", "-c", "test -t 0 && test -t 1 && echo on-a-pty; stty size"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        cwd=tmp_path,
        timeout=30,
    )
    assert result.returncode == 0
    assert b"on-a-pty" in result.stdout
    assert b"24 80" in result.stdout


def test_missing_executable_is_a_clear_error(tmp_path: Path) -> None:
    from hangar.localrun.pty_runner import CliNotFoundError

    runner = TerminalPtyRunner(stdin_fd=os.open(os.devnull, os.O_RDONLY))
    with pytest.raises(CliNotFoundError, match="no-such-cli"):
        runner.run(ChildCommand(["no-such-cli-xyz"], tmp_path, dict(os.environ)))


def test_scripted_runner_records_the_command(tmp_path: Path) -> None:
    runner = ScriptedPtyRunner(lambda command: len(command.argv))
    assert runner.run(ChildCommand(["a", "b"], tmp_path, {})) == 2
    assert runner.commands[0].argv == ["a", "b"]
