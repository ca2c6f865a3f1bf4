"""Test isolation: no test ever reads or writes the real home directory.

The autouse fixture points ``HANGAR_HOME``, ``HOME`` and every agent home variable at
``tmp_path`` before each test, and drops ``HANGAR_*`` settings inherited from the shell.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from hangar.agents.registry import home_variables

pytest_plugins = ["hangar.testing.pytest_plugin"]

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
FIXTURES = SHARED / "fixtures"

XDG_VARS = ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Give the test its own ``HOME`` and ``HANGAR_HOME`` under ``tmp_path``."""
    home = tmp_path / "home"
    home.mkdir()
    for name in list(os.environ):
        if name.startswith("HANGAR_") and name not in {
            "HANGAR_REQUIRE_REAL_AGENTS",
            "HANGAR_REQUIRE_BROWSER",
            "HANGAR_REQUIRE_POSTGRES",
        }:
            monkeypatch.delenv(name)
    for var in home_variables():  # every agent's own override, from the agent registry
        if var not in XDG_VARS:
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("HANGAR_HOME", str(tmp_path / "hangar-home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    yield home


@pytest.fixture
def hangar_home(isolated_home: Path) -> Path:
    return Path(os.environ["HANGAR_HOME"])


@pytest.fixture
def public_fixtures() -> Path:
    """The shared public session fixtures (beside the checkout); skips when absent.

    A user's fresh clone has no shared folder, so tests over these files skip there.
    """
    if not FIXTURES.is_dir():
        pytest.skip("public fixtures folder not present beside the checkout")
    return FIXTURES
