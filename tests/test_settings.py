"""Typed settings from config.toml and HANGAR_* variables."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hangar.errors import CorruptFileError, SettingError
from hangar.settings import OTHER_ENV_VARS, SETTINGS, load_settings

DOCS = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


def test_defaults_without_config(hangar_home: Path) -> None:
    """RW-110 (the default half): a continued Codex turn gets 180 s to show progress."""
    settings = load_settings()
    assert settings.port == 8765
    assert settings.host == "127.0.0.1"
    assert settings.paths.home == hangar_home
    assert settings.codex_turn_startup_timeout_seconds == 180.0


def test_environment_beats_file_beats_default(
    hangar_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hangar_home.mkdir()
    (hangar_home / "config.toml").write_text('port = 9000\ndevice_name = "box"\n')
    assert load_settings().port == 9000
    assert load_settings().device_name == "box"
    monkeypatch.setenv("HANGAR_PORT", "9100")
    assert load_settings().port == 9100


def test_wrong_type_names_the_source(hangar_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HANGAR_PORT", "eighty")
    with pytest.raises(SettingError) as info:
        load_settings()
    assert "HANGAR_PORT" in str(info.value)
    assert "integer" in str(info.value)


def test_unknown_key_in_config_is_an_error(hangar_home: Path) -> None:
    hangar_home.mkdir()
    (hangar_home / "config.toml").write_text("prot = 1\n")
    with pytest.raises(SettingError, match="unknown setting"):
        load_settings()


def test_corrupt_config_is_reported_and_left_untouched(hangar_home: Path) -> None:
    hangar_home.mkdir()
    config = hangar_home / "config.toml"
    original = b'port = 80\n[unterminated\nname = "x\n'
    config.write_bytes(original)
    with pytest.raises(CorruptFileError) as info:
        load_settings()
    assert str(config) in str(info.value)
    result = subprocess.run(
        [sys.executable, "-m", "hangar", "status"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        check=False,
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert str(config) in lines[0] and "invalid TOML" in lines[0]
    assert "Traceback" not in result.stderr
    assert config.read_bytes() == original


def test_config_not_utf8_is_reported(hangar_home: Path) -> None:
    hangar_home.mkdir()
    (hangar_home / "config.toml").write_bytes(b"port = 1\n\xff\xfe\n")
    with pytest.raises(CorruptFileError, match="not UTF-8"):
        load_settings()


def test_every_setting_is_documented() -> None:
    text = DOCS.read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([a-z_]+)` \| `(HANGAR_[A-Z_]+)` \|", text, re.MULTILINE))
    for setting in SETTINGS:
        assert (setting.name, setting.env_var) in rows, f"{setting.name} is not documented"
    documented = {name for name, _ in rows}
    assert documented == {s.name for s in SETTINGS}, "docs list a setting that does not exist"
    for var in OTHER_ENV_VARS:
        assert f"`{var}`" in text, f"{var} is not documented"
