"""``hangar run`` with the real OpenCode TUI in a PTY, a real hub, the fake model, sandboxed."""

from __future__ import annotations

import json

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


def test_opencode_bus_tool_checklist_new_session_error(sandbox_hub: SandboxHub) -> None:
    """LR-175, LR-189, LR-173, CL rules in the run log: OpenCode's own event bus.

    Bootstrap: the issue context reaches the model as instructions (system prompt), never as
    user input (LR-163). A `RUN:` turn (bash tool_use/tool_result with OpenCode's tool name,
    then the final), `/new` (no user input, LR-164; the new session is followed in the same
    run), a plan turn (its `todowrite` list lands in the log as a checklist), a failed model
    request (an `error`). An OpenCode run in another terminal in the same folder is never read.
    """
    hub = sandbox_hub
    hub.sandbox.load(
        scenario_from_dict(
            {
                "name": "opencode-run",
                "title": "A title",
                "turns": [
                    {"shell": "echo hi > marker.txt"},
                    {"text": "Done: the command ran."},
                    {"text": "I am the other terminal."},
                    {"plan": [{"content": "Write the marker", "status": "in_progress"},
                              {"content": "Check it", "status": "pending"}]},
                    {"text": "Planned."},
                    {"error": {"status": 400, "message": "the fake model refuses"}},
                ],
            }
        )
    )  # fmt: skip
    issue = hub.ok("POST", "/api/issues", {"title": "Try opencode"})
    env = hub.agent_env("opencode")
    term = hub.hangar_run(issue["key"], ["opencode"], env)
    wait_screen(term, r"ctrl\+p|tab agents|Build", 300)
    run = wait_until(lambda: hub.runs(issue["key"]), 30, "the run")[0]

    def diagnose() -> str:
        screen = screen_text(bytes(term.output))[-1500:]
        requests = [(r.get("kind"), r.get("status")) for r in hub.sandbox.requests()]
        return f"messages: {hub.messages(run['id'])}\nrequests: {requests}\nscreen: {screen}"

    type_like_a_person(term, "RUN: echo hi > marker.txt", r"RUN: echo hi > marker\.txt")
    first = wait_until(lambda: count(hub, run["id"], "final", 1), 90, "a final", detail=diagnose)
    assert (hub.work / "marker.txt").read_text() == "hi\n"
    type_like_a_person(term, "/new", r"/new")
    other = hub.sandbox.run(
        in_dir(hub.work, ["opencode", "run", "--format", "json", "hello", "from", "elsewhere"]),
        cwd="/",
        env=env,
    )
    assert other.returncode == 0, other.stderr[-2000:]
    type_like_a_person(term, "make a plan", r"make a plan")
    wait_until(lambda: count(hub, run["id"], "final", 2), 90, "the second final", detail=diagnose)
    type_like_a_person(term, "fail please", r"fail please")
    wait_until(lambda: count(hub, run["id"], "error", 1), 90, "the error", detail=diagnose)
    term.send("\x03")
    wait_screen(term, r"local run of HGR-\d+ finished", 60)
    assert term.process.wait(30) == 0
    messages = hub.messages(run["id"])

    kinds = [(m["type"], m.get("tool"), (m.get("input") or {}).get("kind")) for m in messages]
    # OpenCode publishes `todo.updated` while `todowrite` runs, around its part's updates
    plan_turn = sorted(kinds[5:8], key=str)
    assert [*kinds[:5], *kinds[8:]] == [
        ("user_input", None, None),
        ("tool_use", "bash", None),
        ("tool_result", "bash", None),
        ("final", None, None),
        ("user_input", None, None),
        ("final", None, None),
        ("user_input", None, None),
        ("error", None, None),  # one error, though OpenCode reports the failure twice
    ], kinds
    assert plan_turn == [
        ("text", None, "checklist"),
        ("tool_result", "todowrite", None),
        ("tool_use", "todowrite", None),
    ], kinds
    assert kinds.index(("tool_use", "todowrite", None)) < kinds.index(
        ("tool_result", "todowrite", None)
    )
    assert [m["sourceKey"] for m in messages[:4]] == [m["sourceKey"] for m in first[:4]]
    assert messages[0]["content"] == "RUN: echo hi > marker.txt"
    assert messages[1]["input"]["input"]["command"] == "echo hi > marker.txt"
    assert messages[3]["content"] == "Done: the command ran."
    checklist = next(m for m in messages if m["input"].get("kind") == "checklist")["input"][
        "checklist"
    ]
    assert [(i["content"], i["status"]) for i in checklist["items"]] == [
        ("Write the marker", "in_progress"),
        ("Check it", "pending"),
    ]
    assert messages[8]["content"] == "Planned."
    assert "refuses" in messages[10]["content"]
    assert len({m["input"]["session_id"] for m in messages}) == 2  # /new: followed
    text = json.dumps(messages)
    assert "elsewhere" not in text and "other terminal" not in text
    assert issue["key"] not in " ".join(str(m.get("content")) for m in messages)
    turns = [r for r in hub.sandbox.requests() if r.get("kind") == "turn"]
    assert issue["key"] in json.dumps(turns[0]["body"]["messages"][0])  # instructions

    final_run = hub.ok("GET", f"/api/local-runs/{run['id']}")
    assert (final_run["status"], final_run["exitCode"]) == ("completed", 0)
    assert final_run["usage"][0]["provider"] == "opencode"
