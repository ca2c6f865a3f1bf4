"""The sample plugins with their real CLIs, offline in the sandbox against the fake model:
Grok CLI (v1, pipes) and Hermes Agent (v2, on the terminal, with the plan handoff)."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hangar.testing.agent_clis import agent_clis_dir
from hangar.testing.plugin_clis import (
    SAMPLES,
    grok_env,
    hermes_config,
    missing_plugin_clis,
    plugin_cli,
)
from hangar.testing.pytest_plugin import REQUIRE_ENV
from hangar.testing.sandbox import Sandbox, namespace_support
from hangar.testing.scenarios import builtin_scenario, scenario_from_dict
from localrun.sandbox_hub import USER_TOKEN, SandboxHub, in_dir, wait_screen, wait_until

pytestmark = pytest.mark.real_agents


def _require() -> None:
    reason = namespace_support()
    missing = missing_plugin_clis()
    if reason is None and missing:
        reason = f"sample plugin CLIs {missing} not installed in {agent_clis_dir()} (make agents)"
    if reason is not None:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but the samples cannot run: {reason}", pytrace=False)
        pytest.skip(reason)


def cli_path() -> str:
    folders = {str(plugin_cli(name).parent) for name in ("grok", "hermes")}
    return ":".join([*sorted(folders), str(Path(sys.executable).parent), os.environ["PATH"]])


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Sandbox]:
    _require()
    sandbox = Sandbox(tmp_path / "sandbox")
    sandbox.start()
    try:
        yield sandbox
    finally:
        sandbox.close()
    assert sandbox.namespace_pids() == [], "processes left in the sandbox"


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[SandboxHub]:
    _require()
    started = SandboxHub(tmp_path)
    with started:
        yield started
    assert started.sandbox.namespace_pids() == [], "processes left in the sandbox"


@pytest.mark.parametrize("sample", ["grok", "hermes"])
def test_the_samples_pass_the_conformance_kit(box: Sandbox, tmp_path: Path, sample: str) -> None:
    """LR-135: the samples pass `hangar local-run provider validate DIR --run`, their real CLI
    driven offline by the kit's own fake model (their kit.json), inside the sandbox."""
    env = {"PATH": cli_path(), "HOME": str(tmp_path / "home"), "HANGAR_HOME": str(tmp_path / "h")}
    argv = [sys.executable, "-m", "hangar", "local-run", "provider", "validate",
            str(SAMPLES / sample), "--run", "--json"]  # fmt: skip
    done = box.run(in_dir(tmp_path, argv), cwd="/", env=env, timeout=900)
    report = json.loads(done.stdout)
    failed = [c for c in report["checks"] if not c["ok"]]
    assert done.returncode == 0 and not failed, (failed, done.stderr[-2000:])
    first = report["runs"][0]
    kinds = [(m["type"], m.get("tool")) for m in first["messages"]]
    shell = {"grok": "bash", "hermes": "terminal"}[sample]
    assert kinds == [("user_input", None), ("tool_use", shell), ("tool_result", shell),
                     ("final", None)]  # fmt: skip
    assert first["messages"][1]["input"]["command"].startswith("echo ")
    if sample == "hermes":
        names = {c["name"] for c in report["checks"]}
        assert {"handoff_ready sent", "handoff_decision delivered",
                "exit after a cancelled handoff", "usage"} <= names  # fmt: skip
        assert first["sessionIds"] and first["usage"][0]["model"] == "fake-model"


def run_env(hub: SandboxHub, **extra: str) -> dict[str, str]:
    return {
        "PATH": cli_path(),
        "HOME": str(hub.home),
        "TERM": "xterm-256color",
        "HANGAR_HOME": str(hub.client_home),
        "HANGAR_SERVER_URL": hub.url,
        "HANGAR_TOKEN": USER_TOKEN,
        **extra,
    }


def install(hub: SandboxHub, sample: str) -> None:
    argv = [sys.executable, "-m", "hangar", "local-run", "provider", "install",
            str(SAMPLES / sample)]  # fmt: skip
    done = hub.sandbox.run(in_dir(hub.work, argv), cwd="/", env=run_env(hub))
    assert done.returncode == 0, done.stderr
    assert b"run it with `hangar run ISSUE -- " + sample.encode() in done.stdout


def test_grok_run_bound_to_an_issue(hub: SandboxHub) -> None:
    """LR-137/LR-141/LR-163: `hangar run KEY -- grok PROMPT` after install; Grok sees the issue
    context, the execution log and the comment thread only what the user typed and got."""
    install(hub, "grok")
    issue = hub.ok("POST", "/api/issues", {"title": "Marker please", "status": "todo"})
    hub.sandbox.load(builtin_scenario("shell-roundtrip"))
    argv = [sys.executable, "-m", "hangar", "run", issue["key"], "--", "grok",
            "Write the marker file"]  # fmt: skip
    env = run_env(hub, **grok_env(hub.sandbox.base_url))
    done = hub.sandbox.run(in_dir(hub.work, argv), cwd="/", env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (hub.work / "marker.txt").read_text() == "hello-from-tool\n"
    run = hub.runs(issue["key"])[0]
    assert (run["status"], run["cliName"]) == ("completed", "grok")
    messages = hub.messages(run["id"])
    assert [(m["type"], m.get("tool")) for m in messages] == [
        ("user_input", None), ("tool_use", "bash"), ("tool_result", "bash"), ("final", None),
    ]  # fmt: skip
    assert messages[0]["content"] == "Write the marker file"
    assert messages[3]["content"] == "Done: the command ran."
    turns = [r for r in hub.sandbox.requests() if r["kind"] == "turn"]
    assert issue["key"] in json.dumps(turns[0]["body"]["messages"])  # the context reached Grok
    wait_until(
        lambda: len(hub.ok("GET", f"/api/issues/{issue['key']}/comments")["comments"]) >= 3,
        60,
        "the comment thread",
    )


def test_hermes_on_the_terminal(hub: SandboxHub) -> None:
    """LR-140/LR-141 with a TUI adapter: typed into a real PTY, Hermes answers through ACP; the
    events come from its session store; usage and the session id are recorded. A bare slash
    command (`/help`, answered by Hermes itself) shows on the terminal and is no message
    (LR-164)."""
    install(hub, "hermes")
    hermes_home = hub.home / ".hermes"
    hermes_home.mkdir(parents=True, exist_ok=True)
    (hermes_home / "config.yaml").write_text(hermes_config(hub.sandbox.base_url))
    issue = hub.ok("POST", "/api/issues", {"title": "Hermes marker", "status": "todo"})
    hub.sandbox.load(scenario_from_dict({"name": "hermes", "turns": [
        {"shell": "echo hermes-was-here > marker.txt"}, {"text": "Done: the command ran."},
    ]}))  # fmt: skip
    process = hub.hangar_run(issue["key"], ["hermes"], run_env(hub))
    wait_screen(process, r"hermes> ", timeout=120)
    hermes_turn(process, "/help", "Unrecognized /commands are sent to the model")
    process.send("Write the marker file\r")
    wait_screen(process, r"Done: the command ran\.[\s\S]*hermes> ", timeout=120)
    process.send("/exit\r")
    wait_screen(process, r"finished in", timeout=60)
    assert process.process.wait(30) == 0
    assert (hub.work / "marker.txt").read_text() == "hermes-was-here\n"
    run = hub.runs(issue["key"])[0]
    assert run["status"] == "completed"
    messages = hub.messages(run["id"])
    assert [(m["type"], m.get("tool")) for m in messages] == [
        ("user_input", None), ("tool_use", "terminal"), ("tool_result", "terminal"),
        ("final", None),
    ]  # fmt: skip
    assert messages[0]["content"] == "Write the marker file"
    detail = hub.ok("GET", f"/api/local-runs/{run['id']}")
    assert detail["usage"] and detail["usage"][0]["provider"] == "hermes"
    log = (hub.client_home / "logs" / "local-runs" / f"{run['id']}.log").read_text()
    session = messages[0]["sourceKey"].split(":")[2]
    assert f"session {session}" in log


def test_grok_shows_a_model_failure_as_an_error_message(hub: SandboxHub) -> None:
    """LR-156, LR-167: when the model fails, Grok shows "Sorry, I encountered an error: …" in
    its conversation; the sample reports it as an `error` message (never as the final reply),
    so the comment thread gets the question and no answer."""
    install(hub, "grok")
    issue = hub.ok("POST", "/api/issues", {"title": "Model down", "status": "todo"})
    hub.sandbox.load(scenario_from_dict({"name": "down", "turns": [
        {"error": {"status": 500, "message": "the model is down"}},
    ]}))  # fmt: skip
    argv = [sys.executable, "-m", "hangar", "run", issue["key"], "--", "grok", "Say hello"]
    env = run_env(hub, **grok_env(hub.sandbox.base_url))
    done = hub.sandbox.run(in_dir(hub.work, argv), cwd="/", env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]  # Grok's own exit code
    run = hub.runs(issue["key"])[0]
    messages = hub.messages(run["id"])
    assert [m["type"] for m in messages] == ["user_input", "error"]
    assert messages[0]["content"] == "Say hello"
    assert "the model is down" in messages[1]["content"]
    wait_until(
        lambda: len(hub.ok("GET", f"/api/issues/{issue['key']}/comments")["comments"]) >= 2,
        60,
        "the comment thread",
    )
    bodies = [c["body"] for c in hub.ok("GET", f"/api/issues/{issue['key']}/comments")["comments"]]
    assert not any("the model is down" in body for body in bodies)


def hermes_turn(process: Any, question: str, answer: str) -> None:
    process.send(question + "\r")
    wait_screen(process, re.escape(answer) + r"[\s\S]*hermes> ", timeout=120)


def test_hermes_resumes_its_session_in_a_second_run(hub: SandboxHub) -> None:
    """LR-160, LR-189 (session switch): a second run with `hermes --resume SESSION` reports the
    same session, carries the first run's conversation to the model, and logs only its own new
    turn, keyed by Hermes's session and row ids (no key of the first run again)."""
    install(hub, "hermes")
    hermes_home = hub.home / ".hermes"
    hermes_home.mkdir(parents=True, exist_ok=True)
    (hermes_home / "config.yaml").write_text(hermes_config(hub.sandbox.base_url))
    issue = hub.ok("POST", "/api/issues", {"title": "Hermes twice", "status": "todo"})
    hub.sandbox.load(scenario_from_dict({"name": "twice", "turns": [
        {"text": "First answer."}, {"text": "Second answer."},
    ]}))  # fmt: skip
    keys: list[list[str]] = []
    for args, question, answer in (
        (["hermes"], "First question", "First answer."),
        (["hermes", "--resume", "{session}"], "Second question", "Second answer."),
    ):
        if keys:
            session = keys[0][0].split(":")[2]
            args = [a.replace("{session}", session) for a in args]
        process = hub.hangar_run(issue["key"], args, run_env(hub))
        wait_screen(process, r"hermes> ", timeout=120)
        hermes_turn(process, question, answer)
        process.send("/exit\r")
        wait_screen(process, r"finished in", timeout=60)
        assert process.process.wait(30) == 0
        run = hub.runs(issue["key"])[0]  # the newest first
        messages = hub.messages(run["id"])
        assert [(m["type"], m["content"]) for m in messages] == [
            ("user_input", question), ("final", answer),
        ]  # fmt: skip
        keys.append([m["sourceKey"] for m in messages])
    first, second = keys
    session = first[0].split(":")[2]
    assert all(key.startswith(f"hermes:session:{session}:msg:") for key in first + second)
    assert not set(first) & set(second)
    runs = hub.runs(issue["key"])
    assert len(runs) == 2
    for run in runs:
        log = (hub.client_home / "logs" / "local-runs" / f"{run['id']}.log").read_text()
        assert f"session {session}" in log
    turns = [r for r in hub.sandbox.requests() if r["kind"] == "turn"]
    assert "First question" in json.dumps(turns[-1]["body"])  # the resumed history


def test_a_hermes_discussion_hands_its_plan_to_a_new_issue(hub: SandboxHub) -> None:
    """LR-066, LR-068, LR-148, LR-149 with the real CLI: Hermes discusses without a run or an
    issue; `/implement` sends handoff_ready; the binding (a stand-in for `hangar discuss`'s
    card) creates the issue from the saved plan and its run; Hermes is answered, implements in
    the same session without the plan or the ids re-sent to its model, and that work lands in
    the run's log."""
    hermes_home = hub.home / ".hermes"
    hermes_home.mkdir(parents=True, exist_ok=True)
    (hermes_home / "config.yaml").write_text(hermes_config(hub.sandbox.base_url))
    plan = "Plan: 1. Write marker.txt. 2. Check it."
    hub.sandbox.load(scenario_from_dict({"name": "discussion", "turns": [
        {"text": plan}, {"shell": "echo planned > marker.txt"}, {"text": "Implemented the plan."},
    ]}))  # fmt: skip
    steps = [
        {"expect": "hermes> ", "send": "Plan the marker file\r"},
        {"expect": "hermes> ", "send": "/implement\r"},
        {"expect": "hermes> ", "send": "/exit\r"},
    ]
    driver = Path(__file__).with_name("discussion_driver.py")
    argv = [sys.executable, str(driver), str(SAMPLES / "hermes"), hub.url, USER_TOKEN,
            str(hub.root / "spool"), json.dumps(steps)]  # fmt: skip
    env = run_env(hub, HANGAR_RUN_ID="stale-run", HANGAR_ISSUE_ID="stale-issue")
    done = hub.sandbox.run(in_dir(hub.work, argv), cwd="/", env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert (report["exitCode"], report["invalid"], report["missed"]) == (0, 0, None), report
    # the discussion: the question and the plan (no run, no issue yet)
    discussion = [(m["type"], m.get("content")) for m in report["messages"]]
    assert discussion == [("user_input", "Plan the marker file"), ("final", plan)]
    (request,) = report["requests"]
    assert request["plan_source_key"] == report["messages"][1]["sourceKey"]
    # the issue made from the saved plan, and its run with what Hermes did after the handoff
    issues = hub.ok("GET", "/api/issues")["issues"]
    (issue,) = [i for i in issues if i["title"] == "Marker plan"]
    assert hub.ok("GET", f"/api/issues/{issue['key']}")["description"] == plan
    (run,) = hub.runs(issue["key"])
    assert f"Bound to {issue['key']} (run {run['id']})" in report["screen"]
    messages = hub.messages(run["id"])
    assert [(m["type"], m.get("tool")) for m in messages] == [
        ("tool_use", "terminal"),
        ("tool_result", "terminal"),
        ("text", None),
    ]  # fmt: skip  (the implement prompt is Hermes's, not the user's: no user_input, no final)
    assert (hub.work / "marker.txt").read_text() == "planned\n"
    turns = [r for r in hub.sandbox.requests() if r["kind"] == "turn"]
    first, implementing = json.dumps(turns[0]["body"]), json.dumps(turns[1]["body"])
    for secret in ("stale-run", "stale-issue", USER_TOKEN):
        assert secret not in first
    # the handoff re-injects nothing: no ids, and the plan only as Hermes's own earlier reply
    assert issue["key"] not in implementing and run["id"] not in implementing
    assert implementing.count("Write marker.txt") == 1
