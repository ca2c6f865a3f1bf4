"""``hangar tasks adopt`` against a real ``hangar serve``: a real Claude session written in the
sandbox is adopted from the terminal, and its next real turn reaches the issue through the
hub's own session watcher and follower (the composition root's wiring)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import scenario_from_dict
from hub.server_process import running_hub  # tests/hub, a sibling package

from .conftest import sandbox_environ

pytestmark = pytest.mark.real_agents


def wait_until(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.3)
    return value


def test_tasks_adopt_from_the_terminal_follows_the_session(
    agent_sandbox: AgentSandbox, hangar_home: Path
) -> None:
    """LR-159: ``hangar tasks adopt SESSION ISSUE`` links the session to an existing
    issue (left as it was) and imports the log; again imports nothing; the session's next
    turn, made by the real CLI resuming it, arrives in the run and as comments while
    ``hangar serve`` runs."""
    first = agent_sandbox.run_agent(
        "claude",
        scenario_from_dict({"name": "adopt-cli", "turns": [{"text": "First answer."}]}),
        "Explain the build",
    )
    assert first.returncode == 0, first.stderr
    assert first.session_id
    env = sandbox_environ(agent_sandbox)
    with running_hub(env=env) as hub:
        token = hub.token(hangar_home)

        def hangar(*args: str) -> str:
            done = subprocess.run(
                [sys.executable, "-m", "hangar", *args],
                env={**env, "HANGAR_SERVER_URL": hub.url, "HANGAR_TOKEN": token},
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 0, done.stderr
            return done.stdout

        with httpx.Client(
            base_url=hub.url, headers={"Authorization": f"Bearer {token}"}, trust_env=False
        ) as api:
            made = api.post("/api/issues", json={"title": "Document the build"})
            assert made.status_code == 201 and made.json()["key"] == "HGR-1", made.text
            said = hangar("tasks", "adopt", first.session_id, "HGR-1")
            assert "into HGR-1: 2 messages imported" in said and "new issue" not in said
            again = hangar("tasks", "adopt", first.session_id)
            assert "was adopted into HGR-1 before: 0 new messages imported" in again

            issue = api.get("/api/issues/HGR-1").json()
            assert (issue["title"], issue["status"]) == ("Document the build", "backlog")
            assert [i["key"] for i in api.get("/api/issues").json()["issues"]] == ["HGR-1"]
            [run] = api.get("/api/issues/HGR-1/local-runs").json()["runs"]
            assert (run["status"], run["cliName"]) == ("following", "claude")

            resumed = agent_sandbox.run_agent(
                "claude",
                scenario_from_dict({"name": "adopt-cli", "turns": [{"text": "Second answer."}]}),
                "And the tests?",
                resume=True,
            )
            assert resumed.returncode == 0, resumed.stderr

            def bodies() -> list[str] | None:
                comments = api.get("/api/issues/HGR-1/comments").json()["comments"]
                found = [str(c["body"]) for c in comments]
                return found if len(found) >= 3 else None

            found = wait_until(bodies, 60, "the resumed turn's comments")
            log = api.get(f"/api/local-runs/{run['id']}/messages").json()["messages"]
    assert [(m["type"], m["content"]) for m in log] == [
        ("user_input", "Explain the build"),
        ("final", "First answer."),
        ("user_input", "And the tests?"),
        ("final", "Second answer."),
    ]
    assert found[0].startswith("Adopted a `claude` session from `")
    assert found[1] == "And the tests?" and found[2].endswith("Second answer.")
    assert len(found) == 3
