"""`hangar run ISSUE -- NAME args…` with scripted stand-in adapters against a real hub."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from .conftest import USER_TOKEN, LocalHub, client_env, hangar, install


def wait_for(condition: Callable[[], object], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_environment_stderr_comments_usage_and_exit_code(
    plugin_factory: Callable[..., Path], local_hub: LocalHub, tmp_path: Path
) -> None:
    """LR-137, LR-141, LR-142, LR-185, LR-191: the adapter gets the run binding with a
    run-scoped token and its plugin metadata; its diagnostics stay in the run's log; its
    messages reach the execution log and the comment thread; its exit code is the run's."""
    home = tmp_path / "client"
    plugin = plugin_factory(
        "scripted",
        steps=["env", "stderr:diagnostic line from the adapter", "turn:t1", "usage:m1"],
        capabilities={"usage": True},
    )
    install(plugin, home)
    issue = local_hub.issue("Plugin environment")
    done = hangar(
        ["run", issue["key"], "--", "scripted", "exit:3"], client_env(local_hub, home), tmp_path
    )
    assert done.returncode == 3, done.stderr
    run = local_hub.runs(issue["key"])[0]
    assert (run["status"], run["exitCode"], run["cliName"]) == ("failed", 3, "scripted")
    assert run["error"] == "scripted adapter exited with 3"
    messages = local_hub.messages(run["id"])
    assert [m["type"] for m in messages] == ["text", "user_input", "final"]
    env = json.loads(messages[0]["content"])
    installed = home / "localrun-providers" / "scripted"
    assert env["HANGAR_RUN_ID"] == run["id"] == env["HANGAR_LOCALRUN_SESSION_ID"]
    assert (env["HANGAR_ISSUE_ID"], env["HANGAR_ISSUE_KEY"]) == (issue["id"], issue["key"])
    assert env["HANGAR_SERVER_URL"] == local_hub.url and env["HANGAR_WORKSPACE_ID"]
    assert env["token kind"] == "run-scoped" and USER_TOKEN not in json.dumps(env)
    assert env["HANGAR_LOCALRUN_PROVIDER_NAME"] == "scripted"
    assert env["HANGAR_LOCALRUN_PROVIDER_PROTOCOL"] == "hangar-localrun-provider.v1"
    assert env["HANGAR_LOCALRUN_PROVIDER_DIR"] == str(installed)
    assert env["HANGAR_LOCALRUN_MODE"] == "issue"
    assert (env["HANGAR_LOCALRUN_EVENTS_FD"], env["HANGAR_LOCALRUN_CONTROL_FD"]) == ("1", "0")
    assert env["HANGAR_ISSUE_TITLE"] == "Plugin environment"
    assert issue["key"] in env["HANGAR_ISSUE_CONTEXT"]
    log = home / "logs" / "local-runs" / f"{run['id']}.log"
    assert "diagnostic line from the adapter" in log.read_text()
    assert all("diagnostic" not in m["content"] for m in messages)
    assert f"scripted: adapter log: {log}" in done.stderr
    assert "answer t1" in done.stdout  # the user sees the adapter's messages
    detail = local_hub.ok("GET", f"/api/local-runs/{run['id']}")
    assert detail["usage"][0]["inputTokens"] == 10 and detail["usage"][0]["provider"] == "scripted"

    def comments() -> list[str]:
        found = local_hub.ok("GET", f"/api/issues/{issue['key']}/comments")["comments"]
        return [c["body"] for c in found]

    wait_for(lambda: len(comments()) >= 3, 30, "the comment thread")
    assert "question t1" in comments()[1] and "answer t1" in comments()[2]


def test_a_garbage_printing_adapter_keeps_what_was_valid(
    plugin_factory: Callable[..., Path], local_hub: LocalHub, tmp_path: Path
) -> None:
    """Bad input: garbage, a 10 MB line and a half line on stdout — the run completes with
    every valid event, and the user is told how many lines were skipped and why."""
    home = tmp_path / "client"
    install(plugin_factory("noisy"), home)
    issue = local_hub.issue()
    valid = [
        json.dumps({"type": "text", "source": "noisy", "source_key": f"k{n}", "content": f"v{n}"})
        for n in range(3)
    ]
    steps = [
        f"emit:{valid[0]}",
        "stdout:Loading model… 42%",
        f"big:{10 * 1024 * 1024}",
        f"emit:{valid[1]}",
        "raw:\\x00\\xff binary\\n",
        f"emit:{valid[2]}",
        'half:{"type": "text", "source": "noisy", "sou',
    ]
    done = hangar(["run", issue["key"], "--", "noisy", *steps], client_env(local_hub, home))
    assert done.returncode == 0, done.stderr
    run = local_hub.runs(issue["key"])[0]
    assert run["status"] == "completed"
    assert [m["content"] for m in local_hub.messages(run["id"])] == ["v0", "v1", "v2"]
    assert "noisy: 4 invalid event lines skipped (first: line 2: not JSON" in done.stderr
    log = (home / "logs" / "local-runs" / f"{run['id']}.log").read_text()
    assert "line 3: longer than 8388608 bytes" in log and "it starts 'Loading model" in log


def test_an_adapter_that_prints_nothing_and_exits_at_once(
    plugin_factory: Callable[..., Path], local_hub: LocalHub, tmp_path: Path
) -> None:
    home = tmp_path / "client"
    install(plugin_factory("quiet"), home)
    issue = local_hub.issue()
    done = hangar(["run", issue["key"], "--", "quiet", "exit:7"], client_env(local_hub, home))
    assert done.returncode == 7
    run = local_hub.runs(issue["key"])[0]
    assert (run["status"], run["exitCode"]) == ("failed", 7)
    assert local_hub.messages(run["id"]) == []
    assert "quiet: the adapter wrote no events" in done.stderr


def test_ctrl_c_ends_an_adapter_that_never_exits(
    plugin_factory: Callable[..., Path], local_hub: LocalHub, tmp_path: Path
) -> None:
    """Bad input: an adapter that ignores Ctrl+C and never exits — hangar passes SIGINT on,
    then ends it with SIGTERM; the run is recorded failed with what arrived."""
    home = tmp_path / "client"
    install(plugin_factory("stuck"), home)
    issue = local_hub.issue()
    pid_file = tmp_path / "adapter.pid"
    steps = ["turn:t1", f"pid:{pid_file}", "ignore-int", "forever"]
    process = subprocess.Popen(
        [sys.executable, "-m", "hangar", "run", issue["key"], "--", "stuck", *steps],
        env=client_env(local_hub, home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(pid_file.exists, 30, "the adapter to start")
    wait_for(lambda: local_hub.runs(issue["key"]) and local_hub.messages(
        local_hub.runs(issue["key"])[0]["id"]), 30, "the first messages")  # fmt: skip
    adapter = int(pid_file.read_text())
    started = time.monotonic()
    process.send_signal(signal.SIGINT)  # what Ctrl+C sends to hangar's process group
    _, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM, err
    assert time.monotonic() - started < 20
    assert not Path(f"/proc/{adapter}").exists()
    run = local_hub.runs(issue["key"])[0]
    assert run["status"] == "failed"
    assert run["error"] == "stuck adapter exited with 143 after hangar sent SIGINT, SIGTERM"
    assert [m["type"] for m in local_hub.messages(run["id"])] == ["user_input", "final"]


def test_a_second_ctrl_c_does_not_wait(
    plugin_factory: Callable[..., Path], local_hub: LocalHub, tmp_path: Path
) -> None:
    home = tmp_path / "client"
    install(plugin_factory("stubborn"), home)
    issue = local_hub.issue()
    pid_file = tmp_path / "adapter.pid"
    process = subprocess.Popen(
        [sys.executable, "-m", "hangar", "run", issue["key"], "--", "stubborn",
         f"pid:{pid_file}", "ignore-int", "forever"],
        env=client_env(local_hub, home), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    wait_for(pid_file.exists, 30, "the adapter to start")
    log_dir = Path(home) / "logs" / "local-runs"
    process.send_signal(signal.SIGINT)
    wait_for(lambda: any("sent SIGINT" in p.read_text() for p in log_dir.glob("*.log")), 10,
             "the first Ctrl+C to reach the adapter")  # fmt: skip
    started = time.monotonic()
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=30)
    assert process.returncode == 143 and time.monotonic() - started < 4


def test_a_flood_of_100000_events_is_stored_once_in_order(
    plugin_factory: Callable[..., Path], local_hub: LocalHub, tmp_path: Path
) -> None:
    """Bad input: an adapter that floods — 100,000 events, every one stored exactly once and in
    the order written: the reporter holds the pipe back instead of spooling."""
    home = tmp_path / "client"
    install(plugin_factory("flood"), home)
    issue = local_hub.issue()
    env = client_env(local_hub, home)
    done = hangar(["run", "--comments", "off", issue["key"], "--", "flood", "flood:100000"], env,
                  timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "kept in the spool" not in done.stderr
    run = local_hub.runs(issue["key"])[0]
    messages = local_hub.messages(run["id"])
    assert len(messages) == 100_000
    assert [m["seq"] for m in messages] == list(range(1, 100_001))
    assert [m["sourceKey"] for m in messages] == [f"flood:{i}" for i in range(1, 100_001)]
    assert not list((home / "local-run-spool").glob("*/*.json"))
    assert (home / "logs" / "local-runs" / f"{run['id']}.log").stat().st_size < 10_000


def test_an_adapter_that_cannot_start_is_a_clear_error(
    plugin_factory: Callable[..., Path], local_hub: LocalHub, tmp_path: Path
) -> None:
    home = tmp_path / "client"
    folder = plugin_factory("broken")
    (folder / "adapter").write_text("#!/nonexistent/interpreter\n")
    install(folder, home)
    issue = local_hub.issue()
    done = hangar(["run", issue["key"], "--", "broken"], client_env(local_hub, home))
    assert done.returncode == 1
    adapter = home / "localrun-providers" / "broken" / "adapter"
    assert f"hangar: error: cannot start '{adapter}': No such file or directory" in done.stderr
    run = local_hub.runs(issue["key"])[0]
    assert run["status"] == "failed" and "cannot start" in run["error"]
