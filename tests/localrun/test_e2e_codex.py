"""``hangar run`` with the real Codex TUI in a PTY, a real hub, the fake model, in the sandbox."""

from __future__ import annotations

import os
import re

import pytest

from hangar.testing.scenarios import scenario_from_dict

from .sandbox_hub import USER_TOKEN, SandboxHub, type_line, wait_screen, wait_until

pytestmark = pytest.mark.real_agents

KEY_RE = re.compile(r"^thread:([0-9a-f-]{36}):turn:([0-9a-f-]{36}):(user|agent|tool|plan):[^:]+")


def test_codex_turn_tool_final_clear_and_env(sandbox_hub: SandboxHub) -> None:
    """LR-001, LR-005, LR-195, LR-196, LR-199, LR-201, LR-202, LR-204, LR-162..LR-167,
    LR-125: a real Codex TUI run bound to an issue.

    Keystrokes: a prompt that makes the model run `env > child-env.txt`, then `/clear`, then a
    plain prompt, then Ctrl+C twice. Expected: one run; user_input, tool_use/tool_result
    `exec_command`, final per turn (two threads); comments for the inputs and finals only; usage;
    exit code 0; the child saw a run-scoped token, never the user's.
    """
    hub = sandbox_hub
    hub.sandbox.load(
        scenario_from_dict(
            {
                "name": "codex-run",
                "turns": [
                    {"shell": "env > child-env.txt"},
                    {"text": "Done: the command ran."},
                    {"text": "Hello again."},
                ],
            }
        )
    )
    issue = hub.ok("POST", "/api/issues", {"title": "Try codex"})
    env = hub.agent_env("codex")
    term = hub.hangar_run(issue["key"], ["codex"], env)
    wait_screen(term, r"Ask Codex to do anything", 90)
    run = wait_until(lambda: hub.runs(issue["key"]), 30, "the run")[0]
    type_line(term, "RUN: env > child-env.txt", r"RUN:\s*env")

    def turn_done(count: int) -> list[dict[str, object]] | None:
        messages = hub.messages(run["id"])
        finals = [m for m in messages if m["type"] == "final"]
        return messages if len(finals) >= count else None

    wait_until(lambda: turn_done(1), 90, "the first final reply")
    type_line(term, "/clear", r"start a new chat")
    wait_screen(term, r"Ask Codex", 30)
    type_line(term, "hello there", r"hello\s*there")
    messages = wait_until(lambda: turn_done(2), 90, "the second final reply")
    term.send("\x03")
    term.send("\x03")
    wait_screen(term, r"local run of HGR-\d+ finished", 60)
    assert term.process.wait(30) == 0

    kinds = [(m["type"], m.get("tool")) for m in messages]
    assert kinds == [
        ("user_input", None),
        ("tool_use", "exec_command"),
        ("tool_result", "exec_command"),
        ("final", None),
        ("user_input", None),
        ("final", None),
    ], kinds
    assert messages[0]["content"] == "RUN: env > child-env.txt"
    assert messages[3]["content"] == "Done: the command ran."
    assert messages[4]["content"] == "hello there"
    keys = [str(m["sourceKey"]) for m in messages]
    threads = {KEY_RE.match(k).group(1) for k in keys}  # type: ignore[union-attr]
    assert len(threads) == 2, keys  # /clear switched threads inside one run (LR-204)
    rollouts = {p.name for p in (hub.home / ".codex" / "sessions").rglob("rollout-*.jsonl")}
    assert all(any(t in name for name in rollouts) for t in threads)  # real Codex ids
    assert len(hub.runs(issue["key"])) == 1

    # Re-sending a message with its sourceKey is a duplicate, not a new message.
    again = {k: messages[1][k] for k in ("type", "tool", "source", "sourceKey", "input")}
    status, stored = hub.api("POST", f"/api/local-runs/{run['id']}/messages", again)
    assert (status, stored["seq"]) == (200, messages[1]["seq"])

    final_run = hub.ok("GET", f"/api/local-runs/{run['id']}")
    assert (final_run["status"], final_run["exitCode"]) == ("completed", 0)
    usage = final_run["usage"]
    assert usage and usage[0]["provider"] == "codex" and usage[0]["inputTokens"] > 0

    def replies() -> list[str] | None:
        comments = hub.ok("GET", f"/api/issues/{issue['key']}/comments")["comments"]
        bodies = [str(c["body"]) for c in comments[1:]]
        return bodies if len(bodies) >= 4 else None

    bodies = wait_until(replies, 30, "the synced comments")
    assert bodies[0] == "RUN: env > child-env.txt"
    assert bodies[1].endswith("Done: the command ran.")
    assert bodies[2] == "hello there"
    assert bodies[3].endswith("Hello again.")
    assert len(bodies) == 4

    child_env = (hub.work / "child-env.txt").read_text()
    assert USER_TOKEN not in child_env
    assert f"HANGAR_RUN_ID={run['id']}" in child_env
    assert f"HANGAR_ISSUE_KEY={issue['key']}" in child_env
    assert "HANGAR_TOKEN=hgrun_" in child_env
    assert hub.ok("GET", f"/api/issues/{issue['key']}")["status"] == "in_progress"
    # LR-202: the app-server sidecar and the proxy ended with the TUI; only the hub is left
    assert hub.hub is not None
    left = hub.sandbox.namespace_pids(include_helper=False)
    assert left and all(os.getpgid(pid) == hub.hub.pid for pid in left), left
