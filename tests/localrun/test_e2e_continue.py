"""``hangar run`` with the real Continue ``cn`` TUI in a PTY, a real hub, the fake model,
sandboxed: the sessions the run's cn names through hangar's session hook are followed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hangar.testing.scenarios import scenario_from_dict

from .sandbox_hub import (
    USER_TOKEN,
    SandboxHub,
    count,
    in_dir,
    screen_text,
    type_like_a_person,
    wait_screen,
    wait_until,
)

pytestmark = pytest.mark.real_agents

PROMPT = r"Ask anything"


def cn_args(hub: SandboxHub, *extra: str) -> list[str]:
    return ["cn", "--auto", "--config", str(hub.home / ".continue" / "config.yaml"), *extra]


def session_files(hub: SandboxHub) -> dict[str, dict[str, Any]]:
    folder = hub.home / ".continue" / "sessions"
    return {
        p.stem: json.loads(p.read_text("utf-8"))
        for p in folder.glob("*.json")
        if p.name != "sessions.json"
    }


def shows_since(term: Any, start: int, text: str) -> bool | None:
    term.read_available(0.2)
    return text in screen_text(bytes(term.output[start:])) or None


def quit_cn(hub: SandboxHub, term: Any) -> None:
    type_like_a_person(term, "/exit", r"/exit")  # cn's own command: no timing, unlike Ctrl+C x2
    wait_screen(term, r"local run of HGR-\d+ finished", 60)
    assert term.process.wait(30) == 0


def test_cn_tool_checklist_clear_error_and_foreign_session(sandbox_hub: SandboxHub) -> None:
    """LR-176, LR-181, LR-173, LR-189 with the real cn 1.5.47.

    Bootstrap: the issue context reaches the model in the system message (a `--rule` file),
    never as user input (LR-163). A `RUN:` turn (Bash tool_use/tool_result with cn's tool
    name, then the final), a `Checklist` turn (its list on the tool_use), `/clear` (no user
    input, LR-164; the new session file is followed in the same run, LR-179), a failed model
    request (cn keeps no record of it: no final, no stray message). A cn run in another
    terminal in the same folder writes its own session there and is never read (LR-173).
    The hook's notice folder is gone after the run (LR-129).
    """
    hub = sandbox_hub
    hub.sandbox.load(
        scenario_from_dict(
            {
                "name": "cn-run",
                "turns": [
                    {"shell": "echo hi > marker.txt"},
                    {"text": "Done: the command ran."},
                    {"text": "I am the other terminal."},
                    {"plan": [{"content": "Write the marker", "status": "completed"},
                              {"content": "Check it", "status": "pending"}]},
                    {"text": "Planned."},
                    {"text": "Second answer."},
                    {"error": {"status": 400, "message": "the fake model refuses"}},
                ],
            }
        )
    )  # fmt: skip
    issue = hub.ok("POST", "/api/issues", {"title": "Try continue"})
    env = {**hub.agent_env("cn"), "TMPDIR": str(hub.root / "tmp")}
    term = hub.hangar_run(issue["key"], cn_args(hub), env)
    wait_screen(term, PROMPT, 120)
    run = wait_until(lambda: hub.runs(issue["key"]), 30, "the run")[0]

    def diagnose() -> str:
        screen = screen_text(bytes(term.output))[-1500:]
        requests = [(r.get("kind"), r.get("status")) for r in hub.sandbox.requests()]
        return f"messages: {hub.messages(run['id'])}\nrequests: {requests}\nscreen: {screen}"

    type_like_a_person(term, "RUN: echo hi > marker.txt", r"RUN: echo hi > marker\.txt")
    first = wait_until(lambda: count(hub, run["id"], "final", 1), 90, "a final", detail=diagnose)
    assert (hub.work / "marker.txt").read_text() == "hi\n"
    other = hub.sandbox.run(
        in_dir(hub.work, [*cn_args(hub), "-p", "hello from elsewhere"]), cwd="/", env=env
    )
    assert other.returncode == 0, other.stderr[-2000:]
    type_like_a_person(term, "make a plan", r"make a plan")
    wait_until(lambda: count(hub, run["id"], "final", 2), 90, "the second final", detail=diagnose)
    type_like_a_person(term, "/clear", r"/clear")
    wait_screen(term, r"Chat history cleared", 30)
    type_like_a_person(term, "second question", r"second question")
    wait_until(lambda: count(hub, run["id"], "final", 3), 90, "the third final", detail=diagnose)
    type_like_a_person(term, "fail please", r"fail please")
    wait_screen(term, r"the fake model refuses", 60)
    wait_until(
        lambda: count(hub, run["id"], "user_input", 4), 30, "the last input", detail=diagnose
    )
    quit_cn(hub, term)
    messages = hub.messages(run["id"])

    kinds = [(m["type"], m.get("tool")) for m in messages]
    assert kinds == [
        ("user_input", None),
        ("tool_use", "Bash"),
        ("tool_result", "Bash"),
        ("final", None),
        ("user_input", None),
        ("tool_use", "Checklist"),
        ("tool_result", "Checklist"),
        ("final", None),
        ("user_input", None),
        ("final", None),
        ("user_input", None),  # the failed request: cn saves the input, never the error
    ], kinds
    assert [m["sourceKey"] for m in messages[:4]] == [m["sourceKey"] for m in first[:4]]
    assert messages[0]["content"] == "RUN: echo hi > marker.txt"
    assert messages[1]["input"]["input"]["command"] == "echo hi > marker.txt"
    assert messages[3]["content"] == "Done: the command ran."
    checklist = messages[5]["input"]["checklist"]
    assert checklist["source"] == "continue.Checklist"
    assert [(i["content"], i["status"]) for i in checklist["items"]] == [
        ("Write the marker", "completed"),
        ("Check it", "pending"),
    ]
    assert messages[7]["content"] == "Planned."
    assert messages[9]["content"] == "Second answer."
    ours = {m["input"]["session_id"] for m in messages}
    assert len(ours) == 2  # /clear: a new session, followed in the same run
    files = session_files(hub)
    foreign = [sid for sid, data in files.items() if "elsewhere" in json.dumps(data)]
    assert len(foreign) == 1 and foreign[0] not in ours  # written in the same folder ...
    assert files[foreign[0]]["workspaceDirectory"] == str(hub.work)
    text = json.dumps(messages)
    assert "elsewhere" not in text and "other terminal" not in text  # ... and never read
    assert "/clear" not in text and "refuses" not in text
    assert issue["key"] not in " ".join(str(m.get("content")) for m in messages)
    turns = [r for r in hub.sandbox.requests() if r.get("kind") == "turn"]
    system = turns[0]["body"]["messages"][0]
    assert system["role"] == "system" and issue["key"] in json.dumps(system)
    assert not any(issue["key"] in json.dumps(m) for m in turns[0]["body"]["messages"][1:])
    assert not list((hub.root / "tmp").glob("hangar-cn-*"))

    final_run = hub.ok("GET", f"/api/local-runs/{run['id']}")
    assert (final_run["status"], final_run["exitCode"]) == ("completed", 0)
    assert final_run["usage"][0]["provider"] == "continue"
    assert final_run["usage"][0]["model"] == "fake-model"


def test_cn_resume_starts_at_the_session_end_and_the_hook_leaves_no_trace(
    sandbox_hub: SandboxHub,
) -> None:
    """LR-179, LR-125 with the real cn: ``cn --resume`` continues the last session; the run
    reports only what it adds (the notice's baseline), and the Bash tool's environment
    carries neither the hook's variables nor its ``--require``."""
    hub = sandbox_hub
    hub.sandbox.load(
        scenario_from_dict(
            {
                "name": "cn-resume",
                "turns": [
                    {"text": "First run answer."},
                    {"shell": "env > env.txt"},
                    {"text": "Resumed answer."},
                ],
            }
        )
    )
    env = {**hub.agent_env("cn"), "TMPDIR": str(hub.root / "tmp"), "NODE_OPTIONS": "--no-warnings"}
    done = hub.sandbox.run(
        in_dir(hub.work, [*cn_args(hub), "-p", "earlier work"]), cwd="/", env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (earlier,) = session_files(hub)
    issue = hub.ok("POST", "/api/issues", {"title": "Resume continue"})
    term = hub.hangar_run(issue["key"], cn_args(hub, "--resume"), env)
    wait_screen(term, PROMPT, 120)
    run = wait_until(lambda: hub.runs(issue["key"]), 30, "the run")[0]
    type_like_a_person(term, "RUN: env > env.txt", r"RUN: env > env\.txt")
    wait_until(lambda: count(hub, run["id"], "final", 1), 90, "the final")
    quit_cn(hub, term)
    messages = hub.messages(run["id"])

    assert [(m["type"], m.get("tool")) for m in messages] == [
        ("user_input", None),
        ("tool_use", "Bash"),
        ("tool_result", "Bash"),
        ("final", None),
    ]
    assert {m["input"]["session_id"] for m in messages} == {earlier}
    assert messages[0]["content"] == "RUN: env > env.txt"
    assert ":entry:2:" in messages[0]["sourceKey"]  # after the earlier run's two entries
    assert "earlier work" not in json.dumps(messages)
    child_env = (hub.work / "env.txt").read_text()
    assert "HANGAR_CN_" not in child_env and "continue_session_hook" not in child_env
    assert "NODE_OPTIONS=--no-warnings\n" in child_env  # the user's own value, as given
    assert "HANGAR_RUN_ID=" in child_env
    assert USER_TOKEN not in child_env  # the run-scoped token only, never the user's


def test_cn_session_picked_in_resume_is_read_on_from_its_end(sandbox_hub: SandboxHub) -> None:
    """LR-179 with the real cn: after a pick in ``/resume`` the run goes on with the picked
    conversation from where it was. cn 1.5.47 copies the picked history into the current
    session's file (the picked file stays as it was): that copy is read as history, and
    only what follows is reported."""
    hub = sandbox_hub
    hub.sandbox.load(
        scenario_from_dict(
            {
                "name": "cn-pick",
                "turns": [
                    {"text": "Earlier answer."},
                    {"text": "New session answer."},
                    {"text": "Picked session answer."},
                ],
            }
        )
    )
    env = {**hub.agent_env("cn"), "TMPDIR": str(hub.root / "tmp")}
    done = hub.sandbox.run(
        in_dir(hub.work, [*cn_args(hub), "-p", "earlier work"]), cwd="/", env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (earlier,) = session_files(hub)
    issue = hub.ok("POST", "/api/issues", {"title": "Pick a session"})
    term = hub.hangar_run(issue["key"], cn_args(hub), env)
    wait_screen(term, PROMPT, 120)
    run = wait_until(lambda: hub.runs(issue["key"]), 30, "the run")[0]
    type_like_a_person(term, "hello there", r"hello there")
    wait_until(lambda: count(hub, run["id"], "final", 1), 90, "the first final")
    type_like_a_person(term, "/resume", r"/resume")
    wait_screen(term, r"Recent Sessions[\s\S]*Untitled Session", 30)  # the current one first
    start = len(term.output)
    term.send("\x1b[B")  # down to the earlier session: its preview shows
    wait_until(lambda: shows_since(term, start, "earlier work"), 30, "the earlier preview")
    start = len(term.output)
    term.send("\r")
    # the preview showed this text already: only output after Enter tells the picker closed
    wait_until(lambda: shows_since(term, start, "Ask anything"), 30, "the picked session")
    type_like_a_person(term, "after the pick", r"after the pick")
    wait_until(lambda: count(hub, run["id"], "final", 2), 90, "the second final")
    quit_cn(hub, term)
    messages = hub.messages(run["id"])

    assert [(m["type"], m["content"]) for m in messages] == [
        ("user_input", "hello there"),
        ("final", "New session answer."),
        ("user_input", "after the pick"),
        ("final", "Picked session answer."),
    ]
    (current,) = {m["input"]["session_id"] for m in messages}
    assert current != earlier
    assert ":entry:2:" in messages[2]["sourceKey"]  # after the picked session's two entries
    assert "earlier work" not in json.dumps(messages)
    files = session_files(hub)
    assert [h["message"]["content"] for h in files[current]["history"]] == [
        "earlier work", "Earlier answer.", "after the pick", "Picked session answer."
    ]  # fmt: skip
