"""The agent's own resume command, as the task header copies it."""

from __future__ import annotations

import shlex

from hangar.agents.registry import agent


def test_resume_commands_run_in_the_sessions_directory_and_quote_it() -> None:
    codex, claude, opencode = agent("codex"), agent("claude"), agent("opencode")
    assert codex is not None and claude is not None and opencode is not None
    line = claude.resume_command("0b1c-2d", "/srv/my project")
    assert line == "cd '/srv/my project' && claude --resume 0b1c-2d"
    assert shlex.split(line) == ["cd", "/srv/my project", "&&", "claude", "--resume", "0b1c-2d"]
    assert codex.resume_command("019e", None) == "codex resume 019e"
    assert opencode.resume_command("ses_1", "/w") == "cd /w && opencode --session ses_1"


def test_an_agent_without_a_resume_by_id_offers_none() -> None:
    continue_cli = agent("continue")
    assert continue_cli is not None
    assert continue_cli.resume_command("s", "/w") is None  # cn resumes only its last session
