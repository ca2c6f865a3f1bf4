"""``files_below`` lists what the glob it replaces listed, in the same order."""

from __future__ import annotations

import os
from pathlib import Path

from hangar.agents.session_folders import files_below


def test_files_below_matches_the_sorted_glob(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    for day in ("2026/11/30", "2026/11/02", "2025/01/09", "2026/12/01"):
        (sessions / day).mkdir(parents=True)
    (sessions / "2026/11/30/rollout-b.jsonl").write_text("{}\n")
    (sessions / "2026/11/30/rollout-a.jsonl.zst").write_bytes(b"")
    (sessions / "2026/11/30/notes.txt").write_text("not a rollout")
    (sessions / "2026/11/30/.rollout-hidden.jsonl").write_text("{}\n")
    (sessions / "2026/11/02/rollout-c.jsonl").write_text("{}\n")
    os.mkfifo(sessions / "2025/01/09/rollout-fifo.jsonl")  # listed: the caller lstats it
    (sessions / "2026/12/01/rollout-dir").mkdir()
    elsewhere = tmp_path / "elsewhere" / "05"
    elsewhere.mkdir(parents=True)
    (elsewhere / "rollout-linked.jsonl").write_text("{}\n")
    (sessions / "2026/11/05").symlink_to(elsewhere)  # a symlinked day folder is walked
    (sessions / "2026/stray-file").write_text("a file where a folder is expected")

    found = list(files_below(sessions, 3, lambda name: name.startswith("rollout-")))

    expected = sorted(sessions.glob("*/*/*/rollout-*"), key=lambda p: p.parts)
    assert found == expected
    assert [p.name for p in found] == [
        "rollout-fifo.jsonl",
        "rollout-c.jsonl",
        "rollout-linked.jsonl",
        "rollout-a.jsonl.zst",
        "rollout-b.jsonl",
        "rollout-dir",
    ]


def test_a_missing_root_lists_nothing(tmp_path: Path) -> None:
    assert list(files_below(tmp_path / "absent", 1, lambda name: True)) == []
    (tmp_path / "plain").write_text("")
    assert list(files_below(tmp_path / "plain", 0, lambda name: True)) == []
