"""What a discussion keeps, with the real CLIs in a PTY in the sandbox: a turn full of thinking,
a tool call and its result, and the CLI's status events, leaves only the question and the
answer on the hub; the CLI runs with the discussion's id and nothing of a run, an issue or
the user's token."""

from __future__ import annotations

from pathlib import Path

import pytest

from localrun.sandbox_hub import (
    USER_TOKEN,
    SandboxHub,
    screen_text,
    type_line,
    wait_screen,
    wait_until,
)

from .kit import start_pty, the_discussion, turns_of

pytestmark = pytest.mark.real_agents

QUESTION = "RUN: env | sort > child-env.txt"
ANSWER = "Done: the environment is in child-env.txt."
THOUGHT = "Thinking-marker: the user wants the environment saved."
TURNS = [
    {"shell": "env | sort > child-env.txt", "reasoning": THOUGHT},
    {"text": ANSWER, "reasoning": "Thinking-marker: now say it is done."},
]
CLIS = {
    "claude": (
        ["claude", "--permission-mode", "default", "--allowedTools", "Bash"],
        "for shortcuts",
    ),
    "codex": (["codex"], "Ask Codex to do anything"),
}


def _child_env(path: Path) -> dict[str, str]:
    return dict(
        line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines() if "=" in line
    )


@pytest.mark.parametrize("cli", ["claude", "codex"])
def test_only_the_question_and_the_answer_are_saved(pty_hub: SandboxHub, cli: str) -> None:
    """LR-072, LR-073, LR-063, LR-071, LR-126, LR-070, LR-209 (not when the user chose a mode):
    the saved discussion is exactly [question, answer] — no thinking, no tool call or result,
    no status event — and the CLI saw HANGAR_LOCALRUN_SESSION_ID = the discussion id and no
    run, issue or hub credential."""
    hub = pty_hub
    args, ready = CLIS[cli]
    term = start_pty(hub, args, TURNS)
    try:
        wait_screen(term, ready, 90)
        discussion = the_discussion(hub)
        type_line(term, QUESTION, r"RUN:\s*env")
        wait_until(
            lambda: ("assistant", ANSWER) in turns_of(hub, discussion["id"]),
            90,
            "the answer on the hub",
            detail=lambda: turns_of(hub, discussion["id"]),
        )
        assert turns_of(hub, discussion["id"]) == [("user", QUESTION), ("assistant", ANSWER)]
        saved = hub.ok("GET", f"/api/discussions/{discussion['id']}")
        assert "Thinking-marker" not in str(saved)  # no thinking
        assert "HANGAR_LOCALRUN_SESSION_ID" not in str(saved)  # no tool result (the env dump)
        assert "env | sort >" not in str(saved["turns"][1:])  # no tool call
        env = _child_env(hub.work / "child-env.txt")
        assert env["HANGAR_LOCALRUN_SESSION_ID"] == discussion["id"]
        for name in ("HANGAR_RUN_ID", "HANGAR_ISSUE_ID", "HANGAR_ISSUE_KEY", "HANGAR_TOKEN"):
            assert name not in env
        assert "HANGAR_SERVER_URL" not in env
        assert USER_TOKEN not in (hub.work / "child-env.txt").read_text(encoding="utf-8")
        assert "plan mode on" not in screen_text(bytes(term.output))  # the user chose a mode
        term.send("\x03")
        term.send("\x03")
        wait_screen(term, r"hangar: discussion [0-9a-f-]{36} kept \(2 turns saved\)", 60)
        assert term.process.wait(30) == 0
    finally:
        term.close()
    assert the_discussion(hub)["status"] == "open"
    assert hub.ok("GET", "/api/issues")["issues"] == []
