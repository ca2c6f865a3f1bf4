"""`hangar run` from a script: no terminal on stdin, then SIGTERM; the exit code carries over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from .sandbox_hub import USER_TOKEN, SandboxHub, in_dir, screen_text, wait_until

pytestmark = pytest.mark.real_agents


def test_without_a_terminal_and_killed(sandbox_hub: SandboxHub) -> None:
    """The CLI still gets a PTY when stdin is not a terminal; SIGTERM to hangar reaches the
    CLI; the run ends failed with the CLI's exit code; the sidecars are gone (LR-202)."""
    hub = sandbox_hub
    issue = hub.ok("POST", "/api/issues", {"title": "Scripted", "status": "todo"})
    env = {
        **hub.agent_env("codex"),
        "HANGAR_HOME": str(hub.client_home),
        "HANGAR_SERVER_URL": hub.url,
        "HANGAR_TOKEN": USER_TOKEN,
    }
    out = hub.root / "run.out"
    argv = [sys.executable, "-m", "hangar", "run", "--no-status-update", issue["key"], "--",
            "codex"]  # fmt: skip
    with out.open("wb") as sink:
        process = hub.sandbox.spawn(
            in_dir(hub.work, argv), cwd="/", env=env, stdin=subprocess.DEVNULL, stdout=sink,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
    wait_until(
        lambda: "Ask Codex" in screen_text(out.read_bytes()),
        90,
        "the Codex TUI on its PTY",
        detail=lambda: screen_text(out.read_bytes())[-1500:],
    )
    process.send_signal(signal.SIGTERM)
    code = process.wait(60)
    run = hub.runs(issue["key"])[0]
    assert code != 0 and run["exitCode"] == code
    assert run["status"] == "failed" and str(code) in run["error"]
    assert "finished in" in out.read_text(errors="replace")
    assert hub.ok("GET", f"/api/issues/{issue['key']}")["status"] == "todo"  # --no-status-update
    assert hub.hub is not None
    left = hub.sandbox.namespace_pids(include_helper=False)
    assert all(os.getpgid(pid) == hub.hub.pid for pid in left), left
