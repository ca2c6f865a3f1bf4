"""The checklist on hangar's surfaces: ``runtime.tasks.transcript`` (through ``hangar tasks
show --json``) and the readable ``hangar tasks show``, over a real Codex session, across a
restart of hangar and a new turn."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest
from click.testing import CliRunner

from hangar.cli.main import cli
from hangar.paths import hangar_paths

from .real import RunAgent

pytestmark = pytest.mark.real_agents


def _show(session_id: str, *args: str) -> str:
    result = CliRunner().invoke(cli, ["tasks", "show", session_id, *args])
    assert result.exit_code == 0, result.output
    return result.output


def _blocks(message: dict[str, Any]) -> list[list[str]]:
    return [
        [f"{i['content']}:{i['status']}" for i in b["items"]]
        for b in message.get("blocks") or []
        if b["type"] == "checklist"
    ]


def test_transcript_and_tasks_show_carry_the_checklist(
    run_agent: RunAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CL-031, CL-032, CL-037, CL-038, CL-041, CL-068: the owning assistant message
    carries the block and the response the current list; a fresh hangar (a restart) reads
    the same from the agent's own file; after a new turn without a list the old list stays
    on its message and nothing is current; hangar keeps no checklist store of its own."""
    first = run_agent("codex", "plan", "Plan the work")
    assert first.returncode == 0, first.stderr
    monkeypatch.setenv("HOME", str(first.home))
    monkeypatch.setenv("CODEX_HOME", str(first.home / ".codex"))
    assert first.session_id is not None

    data = json.loads(_show(first.session_id, "--json"))
    expected = ["Reproduce the bug:completed", "Write the fix:in_progress"]
    expected.append("Add a regression test:pending")
    assert data["checklist"]["source"] == "codex.update_plan"
    assert [f"{i['content']}:{i['status']}" for i in data["checklist"]["items"]] == expected
    assert _blocks(data["messages"][1]) == [expected]

    text = _show(first.session_id)
    head = text.split("\n#0 ", 1)[0]
    assert "Checklist (codex.update_plan) 1/3 done" in head
    assert "☑ Reproduce the bug" in head and "◐ Write the fix" in head
    assert "☐ Add a regression test" in head

    second = run_agent("codex", "hello", "Say hello", resume=True, cwd="projects/plan")
    assert second.returncode == 0, second.stderr
    data = json.loads(_show(first.session_id, "--json"))
    assert "checklist" not in data
    assert [_blocks(m) for m in data["messages"] if m["role"] == "assistant"] == [[expected], []]
    assert "Checklist (" not in _show(first.session_id).split("\n#0 ", 1)[0]

    db = sqlite3.connect(hangar_paths().executor_db)
    tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    db.close()
    assert not [t for t in tables if "checklist" in t.lower() or "todo" in t.lower()]


def test_a_cleared_list_prints_as_cleared(
    run_agent: RunAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CL-023, CL-030, CL-070: the saved clear comes back as a cleared list, not older
    content, on every surface."""
    run = run_agent("claude", "checklist-clear", "Clear the checklist")
    assert run.returncode == 0, run.stderr
    monkeypatch.setenv("HOME", str(run.home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    assert run.session_id is not None
    data = json.loads(_show(run.session_id, "--json"))
    assert data["checklist"] == {"source": "claude.TodoWrite", "items": []}
    assert _blocks(data["messages"][1]) == [["Temporary step:pending"], []]
    assert "Checklist (claude.TodoWrite): cleared" in _show(run.session_id)
