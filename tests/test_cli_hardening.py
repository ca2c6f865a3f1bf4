"""What the CLI says, found by using it as a new user would (hardening item 18)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from hangar.cli.issues import PRIORITIES, STATUSES
from hangar.cli.main import cli
from hangar.cli.tasks import task_table
from hangar.hub.store import issues as issues_store
from hub.server_process import running_hub  # tests/hub, a sibling package
from hub.sessions import ClaudeSession


class Result:
    def __init__(self, code: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = code, stdout, stderr


def hangar(*args: str, env: dict[str, str]) -> Result:
    """The CLI in process (the hub is a real process): exit code, stdout, stderr."""
    result = CliRunner(env=env).invoke(cli, list(args), prog_name="hangar")
    return Result(result.exit_code, result.stdout, result.stderr)


@pytest.mark.parametrize(
    ("args", "usage"),
    [
        (["run", "HGR-1", "--"], "Usage: hangar run"),
        (["tasks", "list", "--runtime", "nope"], "Usage: hangar tasks list"),
        (["tasks", "purge"], "Usage: hangar tasks purge"),
        (["issue", "show", ""], "Usage: hangar issue show"),
    ],
)
def test_hardening_18_a_usage_error_shows_the_usage_of_that_command(
    args: list[str], usage: str
) -> None:
    result = CliRunner().invoke(cli, args, prog_name="hangar")
    assert result.exit_code == 2, result.output
    assert usage in result.stderr
    assert "Usage: hangar [OPTIONS] COMMAND" not in result.stderr


@pytest.mark.parametrize("limit", ["0", "-5", "1001"])
def test_hardening_18_limit_is_refused_alike_below_one_and_above_the_maximum(limit: str) -> None:
    result = CliRunner().invoke(cli, ["tasks", "show", "any", "--limit", limit])
    assert result.exit_code == 2
    assert "Invalid value for '--limit'" in result.stderr


def _sessions(home: Path) -> None:
    ClaudeSession(home, "11111111-aaaa-4aaa-8aaa-000000000001", "/srv/alpha").user(
        "Set up alpha"
    ).assistant("Done.")
    ClaudeSession(home, "22222222-bbbb-4bbb-8bbb-000000000002", "/srv/beta").user(
        "Fix beta"
    ).assistant("Fixed.")
    chat = str(home / "Documents" / "Codex" / "2026-11-20" / "chat")
    ClaudeSession(home, "33333333-cccc-4ccc-8ccc-000000000003", chat).user("Just a chat").assistant(
        "Hi."
    )


def test_hardening_18_tasks_list_is_grouped_by_project_under_one_header(
    isolated_home: Path,
) -> None:
    _sessions(isolated_home)
    lines = CliRunner().invoke(cli, ["tasks", "list"]).output.splitlines()
    assert lines[0].split() == ["ID", "AGENT", "STATUS", "UPDATED", "TITLE"]
    headings = [line for line in lines[1:] if not line.startswith("  ")]
    names = [heading.split()[0] for heading in headings]
    assert sorted(names[:2]) == ["alpha", "beta"] and names[2:] == ["Conversations"]
    assert "/srv/alpha  (1 session)" in "\n".join(headings)
    below = lines.index(next(h for h in headings if h.startswith("Conversations")))
    assert "Just a chat" in lines[below + 1]


def test_hardening_18_columns_do_not_shift_for_a_long_agent_name() -> None:
    def task(runtime: str, status: str, title: str) -> dict[str, object]:
        return {
            "localTaskId": runtime[:4] + "0123456789",
            "runtime": runtime,
            "status": status,
            "updatedAt": "2026-11-20T09:00:00Z",
            "title": title,
            "workspaceKind": "workspace",
            "workspacePath": "/srv/app",
            "groupWorkspacePath": "/srv/app",
        }

    tasks = [task("codex", "done", "first"), task("a-very-long-agent", "cancelled", "second")]
    lines = task_table(tasks)  # type: ignore[arg-type]
    rows = [line for line in lines if line.startswith("  ")]
    title_columns = {
        row.index(word) for row, word in zip(rows, ["TITLE", "first", "second"], strict=True)
    }
    assert len(title_columns) == 1, lines
    status_columns = {
        row.index(word) for row, word in zip(rows, ["STATUS", "done", "cancelled"], strict=True)
    }
    assert len(status_columns) == 1, lines


def test_hardening_18_runtime_is_case_insensitive(isolated_home: Path) -> None:
    _sessions(isolated_home)
    listed = CliRunner().invoke(cli, ["tasks", "list", "--runtime", "Claude", "--json"])
    assert listed.exit_code == 0, listed.output
    assert len(json.loads(listed.output)["tasks"]) == 3


def test_hardening_18_status_is_readable_text(hangar_home: Path) -> None:
    shown = CliRunner().invoke(cli, ["status"])
    assert shown.exit_code == 0, shown.output
    assert "{" not in shown.output and "'" not in shown.output
    assert re.search(r"^executor\.db\s+schema \d+ \(up to date\)$", shown.output, re.M)
    assert re.search(r"^hub\.db\s+schema \d{4}\w* \(up to date\)$", shown.output, re.M)


def test_hardening_18_the_cli_knows_every_status_and_priority_of_the_hub() -> None:
    assert STATUSES == issues_store.STATUSES
    assert PRIORITIES == issues_store.PRIORITIES


def test_hardening_18_issue_commands_against_a_real_hub(hangar_home: Path) -> None:
    with running_hub() as hub:
        env = {"HANGAR_PORT": hub.url.rsplit(":", 1)[1]}
        empty = hangar("issue", "list", env=env)
        assert empty.returncode == 0 and "no issues yet" in empty.stdout
        parent = hangar("issue", "create", "Parent", env=env).stdout.strip()
        child = hangar("issue", "create", "Child", "--parent", parent, env=env).stdout.strip()
        assert "no issues match" in hangar("issue", "list", "-q", "nothing", env=env).stdout
        comment_id = hangar("issue", "comment", parent, "First", env=env).stdout.strip()
        shown = hangar("issue", "show", parent, env=env).stdout
        assert f"(id {comment_id})" in shown
        assert "child issues (1):" in shown and child in shown and "Child" in shown
        assert "no comments yet" in hangar("issue", "show", child, env=env).stdout
        assert f"parent: {parent}" in hangar("issue", "show", child, env=env).stdout

        edited = hangar("issue", "edit", child, "--title", "Renamed", "--priority", "high", env=env)
        assert edited.returncode == 0, edited.stderr
        assert "Renamed" in edited.stdout and "high" in edited.stdout
        assert "in_review" in hangar("issue", "status", child, "IN_REVIEW", env=env).stdout
        assert " done " in hangar("issue", "close", child, env=env).stdout
        assert "cancelled" in hangar("issue", "close", parent, "--cancel", env=env).stdout
        nothing = hangar("issue", "edit", child, env=env)
        assert nothing.returncode == 2 and "nothing to change" in nothing.stderr

        no_key = hangar("issue", "show", "", env=env)
        assert no_key.returncode == 2 and "give an issue key" in no_key.stderr
        assert "307" not in no_key.stderr

        elsewhere = dict(env, HANGAR_HOME=str(hangar_home.parent / "other-home"))
        missing = hangar("issue", "list", env=elsewhere)
        assert missing.returncode == 1
        assert "no hub token: set HANGAR_TOKEN" in missing.stderr
        assert "cannot reach" not in missing.stderr
        wrong = hangar("issue", "list", env=dict(env, HANGAR_TOKEN="w" * 40))
        assert wrong.returncode == 1
        assert "refused the token" in wrong.stderr and "HANGAR_TOKEN" in wrong.stderr
        assert "Authorization" not in wrong.stderr and "header" not in wrong.stderr
