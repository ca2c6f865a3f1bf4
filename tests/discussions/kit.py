"""Helpers for discussion tests: `hangar discuss` in tmux or a PTY inside the sandbox, the
hub's view of discussions, typing the way a person does."""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hangar.testing.pty_process import PtyProcess
from hangar.testing.scenarios import scenario_from_dict
from localrun.sandbox_hub import USER_TOKEN, SandboxHub, in_dir, wait_until
from terminal.tmux_term import TmuxTerminal

PLAN = """# Cache the transcript index

1. Persist the **turn table** by file signature.
2. Read it back on the first open after a restart.

- keep the append path proportional to the appended bytes
"""
CLAUDE_READY = "plan mode on"
CLAUDE_APPROVE = "ctrl+g to edit in Vim"
"""The last row of Claude's plan-approval dialog."""
CODEX_READY = "Ask Codex to do anything"
PLAN_FILE = r"create your plan at (\S+) using the Write tool"
"""Where Claude 2.1.332's plan mode asks the model to write its plan (the fake model finds it)."""


def claude_plan_turns(plan: str = PLAN) -> list[dict[str, Any]]:
    """A model that writes ``plan`` to Claude's plan file, then calls ExitPlanMode."""
    return [
        {"write": {"path_from": PLAN_FILE, "content": plan}},
        {"call": {"ExitPlanMode": {}}},
    ]


def client_env(hub: SandboxHub, cli: str) -> dict[str, str]:
    return {
        **hub.agent_env(cli),
        "HANGAR_HOME": str(hub.client_home),
        "HANGAR_SERVER_URL": hub.url,
        "HANGAR_TOKEN": USER_TOKEN,
    }


def discuss_argv(cli_args: Sequence[str], options: Sequence[str] = ()) -> list[str]:
    return [sys.executable, "-m", "hangar", "discuss", *options, "--", *cli_args]


def start_tmux(
    hub: SandboxHub,
    cli_args: Sequence[str],
    turns: list[dict[str, Any]] | None = None,
    *,
    options: Sequence[str] = (),
    rows: int = 30,
    columns: int = 100,
    name: str = "tmux",
    env: Mapping[str, str] | None = None,
) -> TmuxTerminal:
    """``hangar discuss [options] -- cli_args…`` in a tmux pane, as the user (their token);
    ``env``: the whole environment, for a CLI the agent kit does not know (a plugin's)."""
    if turns is not None:
        hub.sandbox.load(scenario_from_dict({"name": "discussion", "turns": turns}))
    argv = recording_exit(hub.root / name, in_dir(hub.work, discuss_argv(cli_args, options)))
    return TmuxTerminal(
        hub.root / name, argv, dict(env) if env is not None else client_env(hub, cli_args[0]),
        rows=rows, columns=columns, sandbox=hub.sandbox,
    )  # fmt: skip


def start_pty(
    hub: SandboxHub, cli_args: Sequence[str], turns: list[dict[str, Any]] | None = None
) -> PtyProcess:
    if turns is not None:
        hub.sandbox.load(scenario_from_dict({"name": "discussion", "turns": turns}))
    argv = in_dir(hub.work, discuss_argv(cli_args))
    return hub.sandbox.spawn_pty(argv, cwd="/", env=client_env(hub, cli_args[0]))


def type_like_a_person(term: TmuxTerminal, text: str, echo: str = "› ") -> None:
    """One key at a time, each after the CLI echoed the previous one (Codex takes a burst of
    keys for a paste and holds it; no person types like that). A space shows only as the
    cursor moving on, so the cursor's column is part of the echo: it must stand right after
    the typed text on the line that shows it (measured there, not once before typing, when
    the CLI may still be redrawing and the cursor elsewhere)."""
    for end in range(1, len(text)):
        term.type(text[end - 1])
        shown = f"{echo}{text[:end]}".rstrip()

        def echoed(lines: list[str], shown: str = shown, end: int = end) -> bool:
            row, column = term.cursor()
            if not 0 <= row < len(lines) or shown not in lines[row]:
                return False
            return column == lines[row].index(shown) + len(echo) + end

        term.wait_for(echoed, repr(text[:end]))
    term.type(text[-1])


def say(term: TmuxTerminal, text: str, echo: str) -> None:
    """Type a line, wait for the CLI to show it, press Enter."""
    term.type(text)
    term.wait_text(f"{echo}{text}")
    term.key("Enter")


def discussions(hub: SandboxHub) -> list[dict[str, Any]]:
    return list(hub.ok("GET", "/api/discussions")["discussions"])


def the_discussion(hub: SandboxHub) -> dict[str, Any]:
    found = wait_until(lambda: discussions(hub), 30, "the discussion on the hub")
    assert len(found) == 1, found
    return dict(hub.ok("GET", f"/api/discussions/{found[0]['id']}"))


def turns_of(hub: SandboxHub, discussion_id: str) -> list[tuple[str, str]]:
    found = hub.ok("GET", f"/api/discussions/{discussion_id}")
    return [(t["role"], t["content"]) for t in found["turns"]]


def comments(hub: SandboxHub, key: str) -> list[str]:
    return [c["body"] for c in hub.ok("GET", f"/api/issues/{key}/comments")["comments"]]


def open_fields(term: TmuxTerminal) -> str:
    """From the card's plan page to its fields; returns the fields page."""
    term.key("Enter")
    return "\n".join(term.wait_text("2/2 the fields"))


def to_create(term: TmuxTerminal) -> None:
    """From the first field onto the Create button."""
    for _ in range(6):
        term.key("Down")
    term.wait_text("> [ Create issue ]")


EXIT_STATUS = "exit-status"
"""The file, beside a terminal's tmux socket, where its command's exit status is written."""


def recording_exit(root: Path, argv: Sequence[str]) -> list[str]:
    """``argv`` under a shell that writes its exit status to ``root/EXIT_STATUS``. tmux's own
    ``#{pane_dead_status}`` cannot be relied on: now and then tmux 3.3a leaves the pane's
    process unreaped (a zombie), the pane dead and without a status for 30 s and more."""
    return ["sh", "-c", '"$@"; echo "$?" > "$0"', str(root / EXIT_STATUS), *argv]


def exit_status(term: TmuxTerminal, timeout: float = 30.0) -> int:
    """The exit status of a command started through :func:`recording_exit`, once written."""
    path = term.socket.parent / EXIT_STATUS
    deadline = time.monotonic() + timeout
    while True:
        written = path.read_text(encoding="utf-8") if path.exists() else ""
        if written.endswith("\n"):
            return int(written)
        if time.monotonic() > deadline:
            raise AssertionError(f"no exit status in {path} after {timeout}s")
        time.sleep(0.05)  # polling interval of a condition


def wait_settled(term: TmuxTerminal, still: float = 0.5, timeout: float = 30.0) -> list[str]:
    """Wait until the screen has not changed for ``still`` seconds: how long a person looks
    at a dialog before answering it. Claude Code ignores Enter for a moment after it shows a
    permission dialog (a guard against an Enter carried over from typing), and nothing on the
    screen tells when that moment is over; a screen that has stopped changing is the nearest
    condition a person would wait for."""
    deadline = time.monotonic() + timeout
    last, since = term.lines(), time.monotonic()
    while True:
        time.sleep(0.05)  # polling interval of a condition
        lines = term.lines()
        now = time.monotonic()
        if lines != last:
            last, since = lines, now
        elif now - since >= still:
            return lines
        if now > deadline:
            raise AssertionError("the screen never settled:\n" + "\n".join(lines))


def approve_claude_plan(term: TmuxTerminal) -> None:
    """Claude's own plan approval: "Yes" in its dialog, once it has settled."""
    term.wait_text(CLAUDE_APPROVE, 60)
    wait_settled(term)
    term.key("Enter")


def start_codex(
    hub: SandboxHub, turns: list[dict[str, Any]] | None = None, **options: Any
) -> TmuxTerminal:
    """`hangar discuss -- codex` in tmux, ready for typing (the welcome logo gone)."""
    term = start_tmux(hub, ["codex"], turns, **options)
    term.wait_text(CODEX_READY, 90)
    term.type("x")  # Codex swaps its welcome logo for its tips on the first key
    term.wait_text("› x")
    term.key("BSpace")
    term.wait_text(CODEX_READY)
    return term


def ask_codex(term: TmuxTerminal, question: str) -> None:
    """Type a question into Codex like a person and send it once it shows whole."""
    type_like_a_person(term, question)
    term.wait_text(f"› {question}")
    term.key("Enter")
