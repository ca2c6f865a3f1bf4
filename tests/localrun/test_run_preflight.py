"""`hangar run` refuses a CLI that cannot start before it changes the issue (hardening 16)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx

from hub.server_process import running_hub  # tests/hub, a sibling package


def test_hardening_16_a_cli_that_cannot_start_leaves_the_issue_as_it_was(
    hangar_home: Path, tmp_path: Path
) -> None:
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    not_executable = tmp_path / "claude"
    not_executable.write_text("#!/bin/sh\necho hi\n")
    not_executable.chmod(0o644)
    cases = {
        "missing": (["claude"], 1, "cannot start 'claude': not found on PATH"),
        "not executable": ([str(not_executable)], 1, "is not an executable file"),
        "owned flag": (["claude", "--settings", "x.json"], 2, "`--settings` cannot be used"),
    }
    with running_hub() as hub:
        token = hub.token(hangar_home)
        auth = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=hub.url, headers=auth, trust_env=False, timeout=30) as http:
            key = http.post("/api/issues", json={"title": "Try it"}).json()["key"]
            env = dict(os.environ, HANGAR_SERVER_URL=hub.url, HANGAR_TOKEN=token)
            env["PATH"] = str(empty_bin)
            for name, (command, code, message) in cases.items():
                result = subprocess.run(
                    [sys.executable, "-m", "hangar", "run", key, "--", *command],
                    env=env,
                    cwd=tmp_path,
                    capture_output=True,
                    text=True,
                    timeout=60,
                    check=False,
                )
                assert result.returncode == code, (name, result.stderr)
                assert message in result.stderr, (name, result.stderr)
                assert "Traceback" not in result.stderr
                issue = http.get(f"/api/issues/{key}").json()
                assert issue["status"] == "backlog", name
                assert http.get(f"/api/issues/{key}/comments").json()["comments"] == [], name
                assert http.get(f"/api/issues/{key}/local-runs").json()["runs"] == [], name
