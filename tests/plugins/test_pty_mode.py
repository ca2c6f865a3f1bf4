"""``interactive_pty`` adapters: the adapter owns the user's terminal; events, control frames
and diagnostics travel on inherited descriptors named in the environment."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from localrun.ptyterm import PtyTerminal

from .conftest import LocalHub, client_env, install


def test_a_tui_adapter_keeps_the_terminal_and_reports_on_its_event_fd(
    plugin_factory: Callable[..., Path], local_hub: LocalHub, tmp_path: Path
) -> None:
    """LR-140/LR-191 with a TUI: what the adapter prints is the user's screen; its events
    arrive on HANGAR_LOCALRUN_EVENTS_FD, its diagnostics on HANGAR_LOCALRUN_LOG_FD (kept in the
    run's log), what the user types reaches it through the PTY."""
    home = tmp_path / "client"
    plugin = plugin_factory(
        "tui",
        steps=["tty", "env", "stderr:tui diagnostics", "stdout:drawn on the screen", "ask:tui> "],
        capabilities={"interactive_pty": True},
    )
    install(plugin, home)
    issue = local_hub.issue()
    argv = [sys.executable, "-m", "hangar", "run", issue["key"], "--", "tui"]
    with PtyTerminal(argv, env=client_env(local_hub, home, TERM="xterm"), cwd=tmp_path) as term:
        term.expect("tui> ", timeout=60)
        term.send("hello from the keyboard\r")
        term.expect("finished in", timeout=60)
        assert term.wait(30) == 0
        screen = term.output
    assert "drawn on the screen" in screen and "you said hello from the keyboard" in screen
    assert "tui diagnostics" not in screen
    assert "final: you said" not in screen  # hangar echoes nothing over a TUI adapter
    run = local_hub.runs(issue["key"])[0]
    messages = local_hub.messages(run["id"])
    assert [m["type"] for m in messages] == ["text", "text", "user_input", "final"]
    assert messages[0]["content"] == "stdin is a terminal: True"
    env = json.loads(messages[1]["content"])
    assert int(env["HANGAR_LOCALRUN_EVENTS_FD"]) > 2 and int(env["HANGAR_LOCALRUN_LOG_FD"]) > 2
    assert messages[2]["content"] == "hello from the keyboard"
    log = home / "logs" / "local-runs" / f"{run['id']}.log"
    assert "tui diagnostics" in log.read_text()


def test_ctrl_c_typed_into_a_tui_adapter_ends_it(
    plugin_factory: Callable[..., Path], local_hub: LocalHub, tmp_path: Path
) -> None:
    home = tmp_path / "client"
    install(plugin_factory("tuiloop", steps=["stdout:ready", "forever"],
                           capabilities={"interactive_pty": True}), home)  # fmt: skip
    issue = local_hub.issue()
    argv = [sys.executable, "-m", "hangar", "run", issue["key"], "--", "tuiloop"]
    with PtyTerminal(argv, env=client_env(local_hub, home, TERM="xterm"), cwd=tmp_path) as term:
        term.expect("ready", timeout=60)
        term.send("\x03")
        term.expect("finished in", timeout=30)
        code = term.wait(30)
    assert code == 130
    run = local_hub.runs(issue["key"])[0]
    assert (run["status"], run["exitCode"]) == ("failed", 130)
