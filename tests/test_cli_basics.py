"""The ``hangar`` command's basic surface: help, version, paths."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from hangar import __version__
from hangar.cli.main import cli


def run_hangar(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed ``hangar`` entry point as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "hangar", *args],
        capture_output=True,
        text=True,
        env=env or dict(os.environ),
        check=False,
        timeout=60,
    )


def test_help_lists_commands() -> None:
    result = run_hangar("--help")
    assert result.returncode == 0
    for command in ("paths", "version", "status"):
        assert command in result.stdout


def test_version_prints_package_version() -> None:
    result = run_hangar("version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"hangar {__version__}"
    data = json.loads(CliRunner().invoke(cli, ["version", "--json"]).output)
    assert data["version"] == __version__


def test_paths_json_has_every_location(hangar_home: Path, isolated_home: Path) -> None:
    result = run_hangar("paths", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["home"] == str(hangar_home)
    assert data["hubDb"] == str(hangar_home / "hub.db")
    assert data["executorDb"] == str(hangar_home / "executor.db")
    assert data["deviceFile"] == str(hangar_home / "device.json")
    assert data["tokenFile"] == str(hangar_home / "token")
    agents = data["agents"]
    expected = {"codex", "claude", "opencode", "continue", "gemini", "copilot", "cursor"}
    assert expected | {"qwen", "kiro"} <= set(agents)
    assert agents["codex"]["root"] == str(isolated_home / ".codex")
    assert agents["opencode"]["root"] == str(isolated_home / ".local/share/opencode")
    # `paths` only reports: it creates nothing.
    assert not hangar_home.exists()


def test_paths_honours_each_agent_override(tmp_path: Path) -> None:
    env = dict(os.environ)
    overrides = {
        "CODEX_HOME": ("codex", tmp_path / "cx"),
        "CLAUDE_CONFIG_DIR": ("claude", tmp_path / "cl"),
        "CONTINUE_GLOBAL_DIR": ("continue", tmp_path / "cn"),
        "COPILOT_HOME": ("copilot", tmp_path / "cp"),
        "QWEN_HOME": ("qwen", tmp_path / "qw"),
        "CURSOR_CONFIG_DIR": ("cursor", tmp_path / "cu"),
        "KIRO_HOME": ("kiro", tmp_path / "ki"),
    }
    for var, (_, path) in overrides.items():
        env[var] = str(path)
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    env["GEMINI_CLI_HOME"] = str(tmp_path / "gem")
    data = json.loads(run_hangar("paths", "--json", env=env).stdout)["agents"]
    for var, (agent, path) in overrides.items():
        assert data[agent] == {**data[agent], "root": str(path), "override": var}
    assert data["opencode"]["root"] == str(tmp_path / "data" / "opencode")
    assert data["gemini"]["root"] == str(tmp_path / "gem" / ".gemini")


def test_unknown_command_is_a_usage_error() -> None:
    result = run_hangar("no-such-command")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
