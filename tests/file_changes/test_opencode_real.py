"""The real OpenCode CLI edits a file; hangar reviews and reverts that turn's edit."""

from __future__ import annotations

import pytest

from hangar.agents.launch import NoLauncher
from hangar.agents.registry import open_stores
from hangar.executor.service import Executor
from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import scenario_from_dict

pytestmark = pytest.mark.real_agents


def test_a_real_opencode_edit_is_reverted_and_a_whole_file_write_is_not_revertible(
    agent_sandbox: AgentSandbox,
) -> None:
    """RW-243: OpenCode's edit diff reverts in the task's directory; a file it wrote
    whole carries no diff, so that turn is reported not revertible and nothing is touched."""
    scenario = scenario_from_dict(
        {"name": "oc-edit", "workspace": {"git": True, "files": {"README.md": "# shop\nkept\n"}},
         "turns": [{"edit": {"path": "README.md", "old": "# shop", "new": "# shop edited"}},
                   {"text": "Edited."}]}
    )  # fmt: skip
    run = agent_sandbox.run_agent("opencode", scenario, "Edit the readme")
    assert run.returncode == 0, run.stderr
    written = scenario_from_dict(
        {"name": "oc-write", "turns": [{"write": {"path": "new.txt", "content": "brand new\n"}},
                                        {"text": "Wrote it."}]}
    )  # fmt: skip
    second = agent_sandbox.run_agent("opencode", written, "Write a file", cwd=run.cwd_inside)
    assert second.returncode == 0, second.stderr
    assert (run.cwd / "README.md").read_text() == "# shop edited\nkept\n"

    home = agent_sandbox.host(agent_sandbox.homes.home)
    stores = open_stores({"HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share")})
    executor = Executor.open(stores={"opencode": stores["opencode"]}, launcher=NoLauncher())
    try:
        tasks = executor.handle("runtime.tasks.list", {})["tasks"]
        reviews = {}
        for task in tasks:
            page = executor.handle("runtime.tasks.transcript", {"localTaskId": task["localTaskId"]})
            for message in page["messages"]:
                if any(b["type"] == "fileChanges" for b in message.get("blocks") or []):
                    address = {
                        "localTaskId": task["localTaskId"],
                        "workspacePath": task["workspacePath"],
                        "artifactId": f"turn-file-changes/0/{message['turnId']}",
                    }
                    review = executor.handle("runtime.tasks.turn_file_changes_review", address)
                    reviews[review["files"][0]["path"]] = (address, review)
        edit_address, edit = reviews["README.md"]
        assert edit["state"] == "applied"
        write = reviews["new.txt"][1]
        assert write["state"] == "not_revertible"
        assert write["files"][0]["reason"] == "the agent recorded no diff for this file"
        executor.handle(
            "runtime.tasks.turn_file_changes_revert", {**edit_address, "checksum": edit["checksum"]}
        )
        assert (run.cwd / "README.md").read_text() == "# shop\nkept\n"
        assert (run.cwd / "new.txt").read_text() == "brand new\n"
    finally:
        executor.close()
