"""The inline insertion on the main screen in a real terminal (tmux answers the cursor
query), with a real shell as the provider: rows are inserted and deleted, nothing else moves."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from .tmux_term import TmuxTerminal, tmux_available

ENTRY = Path(__file__).with_name("menu_entry.py")
MENU_HELP = "↑/↓ select · Enter run"


@pytest.fixture
def shell(tmp_path: Path) -> TmuxTerminal:
    if not tmux_available():
        pytest.skip("tmux is not installed (make tmux)")
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PS1": "$ ", "LANG": "C.UTF-8"}
    argv = [sys.executable, str(ENTRY), "--log", str(tmp_path / "entry.log"),
            "--", "bash", "--norc", "--noprofile"]  # fmt: skip
    term = TmuxTerminal(tmp_path / "tmux", argv, env, rows=20, columns=60)
    term.wait_text("$")
    return term


def test_inline_rows_are_inserted_below_the_margin_and_removed(shell: TmuxTerminal) -> None:
    """LR-047..LR-051, LR-054, LR-055 on a real terminal: the menu rows appear two rows
    below the prompt; every other row is unchanged while it is open and after it closes;
    the cursor is back on its row and column."""
    term = shell
    try:
        for n in range(3):
            term.type(f"echo line {n}")
            term.key("Enter")
            term.wait_text(f"$ echo line {n}")
        term.type("/hangar")
        during = term.wait_text(MENU_HELP)
        row, column = term.cursor()
        assert during[row] == "$ /hangar" and column == len("$ /hangar")
        inserted = {row + 3, row + 4}
        assert during[row + 3].startswith("> /hangarping")
        assert during[row + 4].startswith(f"  {MENU_HELP}")
        term.key("Escape")
        after = term.wait_gone(MENU_HELP)
        assert term.cursor() == (row, column)
        assert [line for i, line in enumerate(during) if i not in inserted][: len(after) - 2] == [
            line for i, line in enumerate(after) if i not in inserted
        ][: len(after) - 2]
        assert after[: row + 1] == during[: row + 1]
        assert all(line == "" for line in after[row + 1 :])
    finally:
        term.close()
