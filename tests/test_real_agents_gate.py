"""Where the sandbox cannot run, real-agent fixtures skip, unless CI requires them."""

from __future__ import annotations

from pathlib import Path

import pytest

from hangar.testing import pytest_plugin
from hangar.testing.agent_clis import missing_binaries


def test_unavailable_skips_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HANGAR_REQUIRE_REAL_AGENTS", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no netns here"):
        pytest_plugin._unavailable("no netns here")


def test_unavailable_fails_when_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HANGAR_REQUIRE_REAL_AGENTS", "1")
    with pytest.raises(pytest.fail.Exception, match="HANGAR_REQUIRE_REAL_AGENTS=1 but"):
        pytest_plugin._unavailable("no netns here")


def test_missing_cli_folder_is_reported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HANGAR_AGENT_CLIS_DIR", str(tmp_path))
    assert missing_binaries() == ["codex", "claude", "opencode", "cn", "gemini", "qwen", "copilot"]
