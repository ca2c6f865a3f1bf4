"""device.json: a stable identity, created atomically once, never rewritten."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from hangar.device import load_or_create_device
from hangar.errors import CorruptFileError


def test_created_once_and_stable(tmp_path: Path) -> None:
    path = tmp_path / "state" / "device.json"
    first = load_or_create_device(path, "laptop")
    before = path.read_bytes()
    stat = path.stat()
    second = load_or_create_device(path, "another-name")
    assert second == first
    assert second.name == "laptop"
    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == stat.st_mtime_ns
    assert json.loads(before)["deviceId"] == first.device_id


def _create(path: str) -> str:
    return load_or_create_device(Path(path), "racer").device_id


def test_concurrent_first_use_agrees_on_one_id(tmp_path: Path) -> None:
    path = tmp_path / "state" / "device.json"
    with ProcessPoolExecutor(max_workers=4) as pool:
        ids = set(pool.map(_create, [str(path)] * 16))
    assert len(ids) == 1
    assert [p.name for p in path.parent.iterdir()] == ["device.json"]  # no temp files left


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "expected a JSON object"),
        (b'{"name": "x"}', "deviceId"),
        (b"\xff\xfe", "not valid JSON"),
    ],
)
def test_corrupt_device_file_is_reported_and_untouched(
    hangar_home: Path, content: bytes, problem: str
) -> None:
    hangar_home.mkdir()
    device = hangar_home / "device.json"
    device.write_bytes(content)
    with pytest.raises(CorruptFileError, match=problem):
        load_or_create_device(device, "x")
    result = subprocess.run(
        [sys.executable, "-m", "hangar", "status"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        check=False,
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(device) in lines[0] and problem in lines[0]
    assert device.read_bytes() == content
