"""``hangar run`` with the real Gemini CLI TUI in a PTY (its Gemini API client pointed at the
fake model), a real hub, sandboxed: the session hangar names with ``--session-id`` is the one
followed."""

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
    wait_quiet,
    wait_screen,
    wait_until,
)

pytestmark = pytest.mark.real_agents

PROMPT = r"Type your message"


def chats(hub: SandboxHub) -> dict[str, str]:
    """Every Gemini chat file in the agent home, by path."""
    folder = hub.home / ".gemini" / "tmp"
    return {str(p): p.read_text("utf-8") for p in folder.glob("*/chats/*.jsonl")}


def trust(hub: SandboxHub) -> None:
    """The work folder trusted before (the answer a user gave Gemini's trust dialog once)."""
    path = hub.home / ".gemini" / "trustedFolders.json"
    path.write_text(json.dumps({str(hub.work): "TRUST_FOLDER"}), encoding="utf-8")


def wait_resumed(term: Any) -> None:
    """Wait for the input box drawn after Gemini has loaded the resumed session."""
    wait_screen(term, r"Resuming session", 120)
    deadline = time.monotonic() + 120
    while not re.search(PROMPT, screen_text(bytes(term.output)).rsplit("Resuming session", 1)[1]):
        term.read_available(0.3)
        assert time.monotonic() < deadline, screen_text(bytes(term.output))[-1500:]


def test_gemini_named_session_tool_error_foreign_session_and_resume(
    sandbox_hub: SandboxHub,
) -> None:
    """LR-177, LR-172, LR-173 with the real Gemini CLI 0.61.

    A `RUN:` turn (run_shell_command tool_use/tool_result with Gemini's tool name, then its
    reply, final once the next prompt is written), a failed model request (`error`); a Gemini
    run in another terminal in the same folder writes its own chat and is never read; a second
    run with `--resume ID` follows that session from its end (nothing of the first run again),
    its last reply final once the CLI has ended.
    """
    hub = sandbox_hub
    hub.sandbox.load(
        scenario_from_dict(
            {
                "name": "gemini-run",
                "turns": [
                    {"shell": "echo hi > marker.txt"},
                    {"text": "Done: the command ran."},
                    {"text": "I am the other terminal."},
                    {"error": {"status": 400, "message": "the fake model refuses"}},
                    {"text": "Resumed answer."},
                ],
            }
        )
    )
    issue = hub.ok("POST", "/api/issues", {"title": "Try gemini"})
    env = {**hub.agent_env("gemini"), "TMPDIR": str(hub.root / "tmp")}
    trust(hub)
    term = hub.hangar_run(issue["key"], ["gemini", "--yolo"], env)
    run = wait_until(lambda: hub.runs(issue["key"]), 60, "the run")[0]

    def diagnose() -> str:
        screen = screen_text(bytes(term.output))[-1500:]
        requests = [(r.get("kind"), r.get("status")) for r in hub.sandbox.requests()]
        files = {k[-60:]: v[-1500:] for k, v in chats(hub).items()}
        return (
            f"messages: {hub.messages(run['id'])}\nrequests: {requests}\nchats: {files}\n"
            f"screen: {screen}"
        )

    wait_screen(term, PROMPT, 120)
    type_like_a_person(term, "RUN: echo hi > marker.txt", r"RUN: echo hi > marker\.txt")
    first = wait_until(lambda: count(hub, run["id"], "tool_result", 1), 90, "the tool result",
                       detail=diagnose)  # fmt: skip
    wait_screen(term, r"Done: the command ran\.", 60)
    assert (hub.work / "marker.txt").read_text() == "hi\n"
    other = hub.sandbox.run(
        in_dir(hub.work, ["gemini", "--yolo", "-p", "hello from elsewhere"]), cwd="/", env=env
    )
    assert other.returncode == 0, other.stderr[-2000:]
    type_like_a_person(term, "fail please", r"fail please")
    wait_until(lambda: count(hub, run["id"], "error", 1), 90, "the error", detail=diagnose)
    leave(term)
    wait_screen(term, r"local run of HGR-\d+ finished", 60)
    assert term.process.wait(30) == 0
    messages = hub.messages(run["id"])

    assert [(m["type"], m.get("tool")) for m in messages] == [
        ("user_input", None),
        ("tool_use", "run_shell_command"),
        ("tool_result", "run_shell_command"),
        ("final", None),
        ("user_input", None),
        ("error", None),
    ], diagnose()
    assert [m["sourceKey"] for m in messages[:3]] == [m["sourceKey"] for m in first[:3]]
    assert messages[1]["input"]["input"]["command"] == "echo hi > marker.txt"
    assert messages[3]["content"] == "Done: the command ran."
    assert "refuses" in messages[5]["content"]
    (ours,) = {m["input"]["session_id"] for m in messages}
    files = chats(hub)
    assert len(files) == 2 and any("elsewhere" in text for text in files.values())
    assert "elsewhere" not in json.dumps(messages) and "other terminal" not in json.dumps(messages)
    assert "/quit" not in json.dumps(messages)
    final_run = hub.ok("GET", f"/api/local-runs/{run['id']}")
    assert (final_run["status"], final_run["exitCode"]) == ("completed", 0)
    assert final_run["usage"][0]["provider"] == "gemini"

    again = hub.hangar_run(issue["key"], ["gemini", "--resume", ours, "--yolo"], env)
    second = wait_until(lambda: [r for r in hub.runs(issue["key"]) if r["id"] != run["id"]], 60,
                        "the second run")[0]  # fmt: skip
    wait_resumed(again)
    type_like_a_person(again, "once more", r"once more")
    wait_screen(again, r"Resumed answer\.", 90)
    leave(again)
    wait_screen(again, r"local run of HGR-\d+ finished", 60)
    resumed = hub.messages(second["id"])
    assert [(m["type"], m["content"]) for m in resumed] == [
        ("user_input", "once more"),
        ("final", "Resumed answer."),
    ]
    assert {m["input"]["session_id"] for m in resumed} == {ours}


def drawn_after(term: Any, start: int, pattern: str, timeout: float = 60) -> None:
    """Wait until output written after byte ``start`` draws ``pattern``."""
    deadline = time.monotonic() + timeout
    while not re.search(pattern, screen_text(bytes(term.output[start:]))):
        term.read_available(0.3)
        assert time.monotonic() < deadline, screen_text(bytes(term.output))[-1500:]


def test_gemini_clear_and_resume_inside_the_run_follow_exactly_the_run_s_sessions(
    sandbox_hub: SandboxHub,
) -> None:
    """LR-179, LR-173 with the real Gemini CLI 0.61.

    `/clear` inside the run's TUI starts a new session: its prompt and reply are the run's,
    keyed by the new session, and the first session's reply is settled as final on leaving
    it. `/resume`, picking the first session in Gemini's browser, goes back to it: only what
    is said after the resume is reported, nothing of its earlier turns again. A Gemini in
    another terminal in the same folder, before and after the switch, is never read. Gemini's
    telemetry stays in the run's private file (no request but the model's, no DNS lookup).
    """
    hub = sandbox_hub
    hub.sandbox.load(
        scenario_from_dict(
            {
                "name": "gemini-switch",
                "turns": [
                    {"text": "First answer."},
                    {"text": "I am the other terminal."},
                    {"text": "After clear."},
                    {"text": "I am the other terminal again."},
                    {"text": "After resume."},
                ],
            }
        )
    )
    issue = hub.ok("POST", "/api/issues", {"title": "Switch gemini sessions"})
    env = {**hub.agent_env("gemini"), "TMPDIR": str(hub.root / "tmp")}
    trust(hub)
    term = hub.hangar_run(issue["key"], ["gemini", "--yolo"], env)
    run = wait_until(lambda: hub.runs(issue["key"]), 60, "the run")[0]

    def diagnose() -> str:
        screen = screen_text(bytes(term.output))[-1500:]
        files = {k[-60:]: v[-800:] for k, v in chats(hub).items()}
        return f"messages: {hub.messages(run['id'])}\nchats: {files}\nscreen: {screen}"

    def foreign(prompt: str) -> None:
        other = hub.sandbox.run(in_dir(hub.work, ["gemini", "--yolo", "-p", prompt]), cwd="/",
                                env=env)  # fmt: skip
        assert other.returncode == 0, other.stderr[-2000:]

    def ask(text: str, answer: str) -> None:
        type_like_a_person(term, text, re.escape(text))
        wait_screen(term, re.escape(answer), 90)

    wait_screen(term, PROMPT, 120)
    ask("first question", "First answer.")
    foreign("hello from elsewhere")
    start = len(term.output)
    type_like_a_person(term, "/clear", r"/clear")
    drawn_after(term, start, r"Tips for getting started[\s\S]*" + PROMPT)  # the cleared screen
    ask("after clear", "After clear.")
    wait_until(lambda: count(hub, run["id"], "user_input", 2), 60, "the new session's input",
               detail=diagnose)  # fmt: skip
    foreign("hello again from elsewhere")
    # Enter only once the command menu shows /resume itself: under load Ink's menu can lag
    # behind the echo, and an Enter then takes the menu's highlighted entry instead.
    type_like_a_person(term, "/resume", r"Browse auto-saved conversations")
    wait_screen(term, r"Chat Sessions \(4 total\)", 60)  # the browser lists the sessions
    term.send("/")
    wait_screen(term, r"Esc to cancel", 30)
    wait_quiet(term)  # the search box listens only once it has been drawn
    term.send("first question")
    wait_screen(term, r"1 total, filtered", 30)  # the one session that said it
    term.send("\r")
    wait_resumed(term)
    ask("after resume", "After resume.")
    leave(term)
    wait_screen(term, r"local run of HGR-\d+ finished", 60)
    assert term.process.wait(30) == 0
    messages = hub.messages(run["id"])

    said = [(m["type"], m["content"]) for m in messages]
    assert said == [
        ("user_input", "first question"),
        ("final", "First answer."),
        ("user_input", "after clear"),
        ("final", "After clear."),
        ("user_input", "after resume"),
        ("final", "After resume."),
    ], diagnose()
    sessions = [m["input"]["session_id"] for m in messages]
    first, cleared = sessions[0], sessions[2]
    assert first != cleared and sessions == [first, first, cleared, cleared, first, first]
    keys = zip(sessions, messages, strict=True)
    assert all(f"gemini:session:{s}:" in m["sourceKey"] for s, m in keys)
    assert len({m["sourceKey"] for m in messages}) == 6
    files = chats(hub)
    assert len(files) == 4 and sum("elsewhere" in text for text in files.values()) == 2
    assert "elsewhere" not in json.dumps(messages) and "other terminal" not in json.dumps(messages)
    assert "/clear" not in json.dumps(messages) and "/resume" not in json.dumps(messages)
    assert hub.sandbox.dns_queries() == []
    assert all(r["path"].startswith("/v1beta/models/fake-model:") for r in hub.sandbox.requests())
    assert not list((hub.root / "tmp").glob("hangar-gemini-*")), "the telemetry folder is left"


def leave(term: Any) -> None:
    """Quit Gemini with Ctrl+C twice on its empty prompt. Not ``/quit``: under load its
    completion menu can still list every command when Enter comes, and Enter then picks the
    highlighted one instead of sending ``/quit``."""
    start = len(term.output)
    term.send("\x03")
    drawn_after(term, start, r"Press Ctrl\+C again to exit")
    term.send("\x03")
