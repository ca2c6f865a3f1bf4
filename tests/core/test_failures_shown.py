"""Failures show everywhere and a restored task is back (hardening item 17).

The failing session is the demo corpus's real Claude Code transcript: its last request got an
HTTP 400 from the (scripted) model, recorded by Claude itself as an ``isApiErrorMessage`` line.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from hangar.cli.main import cli
from hangar.hub.demo import demo_corpus
from hub.sessions import ClaudeSession  # tests/hub, a sibling package

FAILING_SESSION = "2c6ac66b-d402-4d65-912c-19f18972122f"


@pytest.fixture
def failed_claude_session(isolated_home: Path) -> str:
    try:
        corpus = demo_corpus()
    except Exception as exc:  # a checkout without the generated corpus
        pytest.skip(str(exc))
    found = list((corpus / ".claude" / "projects").glob(f"*/{FAILING_SESSION}.jsonl"))
    assert len(found) == 1
    target = isolated_home / found[0].relative_to(corpus)
    target.parent.mkdir(parents=True)
    shutil.copyfile(found[0], target)
    return FAILING_SESSION


def _tasks(runner: CliRunner, *args: str) -> list[dict[str, object]]:
    result = runner.invoke(cli, ["tasks", "list", "--json", *args])
    assert result.exit_code == 0, result.output
    tasks: list[dict[str, object]] = json.loads(result.output)["tasks"]
    return tasks


def test_hardening_17_a_failed_session_is_failed_on_the_first_list(
    failed_claude_session: str,
) -> None:
    runner = CliRunner()
    (task,) = _tasks(runner)  # a fresh home: nothing was ever read in full
    assert task["status"] == "failed"
    human = runner.invoke(cli, ["tasks", "list"]).output
    assert " failed " in human


def test_hardening_17_tasks_show_prints_the_error_with_its_detail(
    failed_claude_session: str,
) -> None:
    runner = CliRunner()
    shown = runner.invoke(cli, ["tasks", "show", failed_claude_session])
    assert shown.exit_code == 0, shown.output
    last = shown.output.rsplit("\n#", 1)[1]
    assert last.startswith("5 assistant · failed")
    assert "✗ error: API Error: 400 fake model: scripted failure" in last
    data = json.loads(runner.invoke(cli, ["tasks", "show", failed_claude_session, "--json"]).output)
    message = data["messages"][-1]
    assert message["status"] == "failed"
    assert message["error"].startswith("API Error: 400 fake model: scripted failure")


def test_hardening_17_restore_brings_the_task_back_not_missing(isolated_home: Path) -> None:
    session = ClaudeSession(isolated_home, "55555555-eeee-4eee-8eee-000000000005", "/srv/app")
    session.user("Keep me").assistant("Kept.")
    runner = CliRunner()
    (task,) = _tasks(runner)
    task_id = str(task["localTaskId"])
    deleted = runner.invoke(cli, ["tasks", "delete", task_id])
    assert deleted.exit_code == 0, deleted.output
    assert not session.path.exists()
    assert _tasks(runner, "--all") == []  # the user checks: gone (this refresh saw no file)
    restored = runner.invoke(cli, ["tasks", "restore", task_id])
    assert restored.exit_code == 0, restored.output
    assert session.path.exists()
    (back,) = _tasks(runner)
    assert (back["localTaskId"], back["status"]) == (task_id, "done")
    shown = runner.invoke(cli, ["tasks", "show", task_id])
    assert shown.exit_code == 0 and "Kept." in shown.output
