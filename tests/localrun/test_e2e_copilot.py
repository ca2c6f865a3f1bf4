"""``hangar run`` with the real Copilot CLI TUI in a PTY (its offline mode, a Chat Completions
provider pointed at the fake model), a real hub, sandboxed: the session hangar names with
``--session-id`` is the one followed."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

from hangar.testing.scenarios import scenario_from_dict

from .sandbox_hub import (
    SandboxHub,
    count,
    in_dir,
    screen_text,
    type_like_a_person,
    wait_screen,
    wait_until,
)

pytestmark = pytest.mark.real_agents


def sessions(hub: SandboxHub) -> dict[str, str]:
    folder = hub.home / ".copilot" / "session-state"
    return {p.parent.name: p.read_text("utf-8") for p in folder.glob("*/events.jsonl")}


def trust_folder(term: Any) -> None:
    """Answer Copilot's folder-trust question with "Yes" (for this session), as a user does."""
    wait_screen(term, r"Do you trust the files in this folder\?", 120)
    start = len(term.output)
    term.send("\r")
    deadline = time.monotonic() + 60
    while (
        "trust the files" in screen_text(bytes(term.output[start:]))[-600:]
        or len(term.output) == start
    ):  # the dialog is still drawn, or nothing was redrawn yet
        term.read_available(0.3)
        assert time.monotonic() < deadline, screen_text(bytes(term.output))[-1500:]


def test_copilot_named_session_tool_error_foreign_session_and_resume(
    sandbox_hub: SandboxHub,
) -> None:
    """LR-177, LR-172, LR-173, LR-189 with the real Copilot CLI 1.0.102.

    A `RUN:` turn (bash tool_use/tool_result with Copilot's tool name, then the final), an
    ordinary message and its final, a failed model request (`error`); a Copilot run in
    another terminal in the same folder writes its own session and is never read; a second
    run with `--resume=ID` follows that session from its end (nothing of the first run again).
    """
    hub = sandbox_hub
    hub.sandbox.load(
        scenario_from_dict(
            {
                "name": "copilot-run",
                "turns": [
                    {"shell": "echo hi > marker.txt"},
                    {"text": "Done: the command ran."},
                    {"text": "I am the other terminal."},
                    {"text": "Second answer."},
                    {"error": {"status": 400, "message": "the fake model refuses"}},
                    {"text": "Resumed answer."},
                ],
            }
        )
    )
    issue = hub.ok("POST", "/api/issues", {"title": "Try copilot"})
    env = {**hub.agent_env("copilot"), "TMPDIR": str(hub.root / "tmp")}
    term = hub.hangar_run(issue["key"], ["copilot", "--allow-all-tools"], env)
    run = wait_until(lambda: hub.runs(issue["key"]), 60, "the run")[0]

    def diagnose() -> str:
        screen = screen_text(bytes(term.output))[-1500:]
        requests = [(r.get("kind"), r.get("status")) for r in hub.sandbox.requests()]
        return f"messages: {hub.messages(run['id'])}\nrequests: {requests}\nscreen: {screen}"

    trust_folder(term)
    type_like_a_person(term, "RUN: echo hi > marker.txt", r"RUN: echo hi > marker\.txt")
    first = wait_until(lambda: count(hub, run["id"], "final", 1), 90, "a final", detail=diagnose)
    assert (hub.work / "marker.txt").read_text() == "hi\n"
    other = hub.sandbox.run(
        in_dir(hub.work, ["copilot", "-p", "hello from elsewhere", "--allow-all-tools"]),
        cwd="/",
        env=env,
    )
    assert other.returncode == 0, other.stderr[-2000:]
    type_like_a_person(term, "second question", r"second question")
    wait_until(lambda: count(hub, run["id"], "final", 2), 90, "the second final", detail=diagnose)
    type_like_a_person(term, "fail please", r"fail please")
    wait_until(lambda: count(hub, run["id"], "error", 1), 90, "the error", detail=diagnose)
    type_like_a_person(term, "/exit", r"/exit")
    wait_screen(term, r"local run of HGR-\d+ finished", 60)
    assert term.process.wait(30) == 0
    messages = hub.messages(run["id"])

    assert [(m["type"], m.get("tool")) for m in messages] == [
        ("user_input", None),
        ("tool_use", "bash"),
        ("tool_result", "bash"),
        ("final", None),
        ("user_input", None),
        ("final", None),
        ("user_input", None),
        ("error", None),
    ]
    assert [m["sourceKey"] for m in messages[:4]] == [m["sourceKey"] for m in first[:4]]
    assert messages[1]["input"]["input"]["command"] == "echo hi > marker.txt"
    assert messages[3]["content"] == "Done: the command ran."
    assert messages[5]["content"] == "Second answer."
    assert "refuses" in messages[7]["content"]
    (ours,) = {m["input"]["session_id"] for m in messages}
    files = sessions(hub)
    assert len(files) == 2 and "elsewhere" in next(t for s, t in files.items() if s != ours)
    assert "elsewhere" not in json.dumps(messages) and "other terminal" not in json.dumps(messages)
    assert "/exit" not in json.dumps(messages)
    final_run = hub.ok("GET", f"/api/local-runs/{run['id']}")
    assert (final_run["status"], final_run["exitCode"]) == ("completed", 0)
    assert final_run["usage"][0]["provider"] == "copilot"

    again = hub.hangar_run(issue["key"], ["copilot", f"--resume={ours}", "--allow-all-tools"], env)
    second = wait_until(lambda: [r for r in hub.runs(issue["key"]) if r["id"] != run["id"]], 60,
                        "the second run")[0]  # fmt: skip
    trust_folder(again)
    type_like_a_person(again, "once more", r"once more")
    wait_until(lambda: count(hub, second["id"], "final", 1), 90, "the resumed final")
    type_like_a_person(again, "/exit", r"/exit")
    wait_screen(again, r"local run of HGR-\d+ finished", 60)
    resumed = hub.messages(second["id"])
    assert [(m["type"], m["content"]) for m in resumed] == [
        ("user_input", "once more"),
        ("final", "Resumed answer."),
    ]
    assert {m["input"]["session_id"] for m in resumed} == {ours}


def shows_after(term: Any, start: int, text: str, timeout: float = 60) -> None:
    """Wait until ``text`` is drawn by output written after byte ``start``."""
    deadline = time.monotonic() + timeout
    while text not in screen_text(bytes(term.output[start:])):
        term.read_available(0.2)
        assert time.monotonic() < deadline, screen_text(bytes(term.output))[-1500:]


def open_command_menu(term: Any) -> None:
    """Type `/` and wait for Copilot's command menu, as a user does before typing a command
    with arguments."""
    start = len(term.output)
    term.send("/")
    shows_after(term, start, "/add-dir", 30)


def test_copilot_clear_and_resume_inside_the_run_follow_exactly_the_run_s_sessions(
    sandbox_hub: SandboxHub,
) -> None:
    """LR-179, LR-173 with the real Copilot CLI 1.0.102.

    `/clear` inside the run's TUI starts a new session: its tool turn and replies are the
    run's, keyed by the new session; `/resume ID` goes back to the first one and only what is
    said after the resume is reported, nothing of its earlier turn again. A Copilot in another
    terminal in the same folder, before and after the switch, is never read. The shell
    commands Copilot runs do not see the telemetry file hangar names (so no other process
    writes there), and the telemetry stays local (no request but the model's, no DNS lookup).
    """
    hub = sandbox_hub
    hub.sandbox.load(
        scenario_from_dict(
            {
                "name": "copilot-switch",
                "turns": [
                    {"text": "First answer."},
                    {"text": "I am the other terminal."},
                    {"shell": "env > env.txt"},
                    {"text": "After clear."},
                    {"text": "I am the other terminal again."},
                    {"text": "One more answer."},
                    {"text": "After resume."},
                ],
            }
        )
    )
    issue = hub.ok("POST", "/api/issues", {"title": "Switch copilot sessions"})
    env = {**hub.agent_env("copilot"), "TMPDIR": str(hub.root / "tmp")}
    term = hub.hangar_run(issue["key"], ["copilot", "--allow-all-tools"], env)
    run = wait_until(lambda: hub.runs(issue["key"]), 60, "the run")[0]

    def diagnose() -> str:
        screen = screen_text(bytes(term.output))[-1500:]
        return f"messages: {hub.messages(run['id'])}\nscreen: {screen}"

    def foreign(prompt: str) -> None:
        argv = ["copilot", "-p", prompt, "--allow-all-tools"]
        other = hub.sandbox.run(in_dir(hub.work, argv), cwd="/", env=env)
        assert other.returncode == 0, other.stderr[-2000:]

    def ask(text: str, finals: int) -> None:
        type_like_a_person(term, text, re.escape(text))
        wait_until(lambda: count(hub, run["id"], "final", finals), 90, f"final {finals}",
                   detail=diagnose)  # fmt: skip

    trust_folder(term)
    ask("first question", 1)
    (first,) = {m["input"]["session_id"] for m in hub.messages(run["id"])}
    foreign("hello from elsewhere")
    type_like_a_person(term, "/clear", r"/clear")
    state = hub.home / ".copilot" / "session-state"
    folders = lambda: [p for p in state.iterdir() if not p.name.startswith(".")]  # noqa: E731
    wait_until(lambda: len(folders()) == 3, 60, "the new session's folder", detail=diagnose)
    ask("RUN: env > env.txt", 2)
    foreign("hello again from elsewhere")
    ask("one more", 3)
    start = len(term.output)
    open_command_menu(term)
    type_like_a_person(term, f"resume {first}", re.escape(first))
    shows_after(term, start, "First answer.")  # the resumed session's history is drawn
    ask("after resume", 4)
    type_like_a_person(term, "/exit", r"/exit")
    wait_screen(term, r"local run of HGR-\d+ finished", 60)
    assert term.process.wait(30) == 0
    messages = hub.messages(run["id"])

    assert [(m["type"], m.get("tool")) for m in messages] == [
        ("user_input", None),
        ("final", None),
        ("user_input", None),
        ("tool_use", "bash"),
        ("tool_result", "bash"),
        ("final", None),
        ("user_input", None),
        ("final", None),
        ("user_input", None),
        ("final", None),
    ], diagnose()
    said = [m["content"] for m in messages if m["type"] in ("user_input", "final")]
    assert said == ["first question", "First answer.", "RUN: env > env.txt", "After clear.",
                    "one more", "One more answer.", "after resume", "After resume."]  # fmt: skip
    ids = [m["input"]["session_id"] for m in messages]
    cleared = ids[2]
    assert cleared != first and ids == [first] * 2 + [cleared] * 6 + [first] * 2
    keys = zip(ids, messages, strict=True)
    assert all(m["sourceKey"].startswith(f"copilot:session:{s}:") for s, m in keys)
    files = sessions(hub)
    assert len(files) == 4
    assert sum("elsewhere" in text for text in files.values()) == 2
    assert "elsewhere" not in json.dumps(messages) and "other terminal" not in json.dumps(messages)
    assert "/clear" not in json.dumps(messages) and "resume " + first not in json.dumps(messages)
    shell_env = (hub.work / "env.txt").read_text()
    assert "COPILOT_AGENT_SESSION_ID=" + cleared in shell_env  # the command ran in the new one
    assert "COPILOT_OTEL" not in shell_env
    assert hub.sandbox.dns_queries() == []
    assert all(r["path"].startswith("/v1/") for r in hub.sandbox.requests())
    assert not list((hub.root / "tmp").glob("hangar-copilot-*")), "the telemetry folder is left"
