"""The menu and the card in a real terminal (tmux) around the real Codex TUI, in the sandbox.

``menu_entry.py`` runs Codex through the real PTY runner with ``/hangarping`` and
``/hangarcreateissue`` registered; the card reads and creates through the sandbox's hub. These
tests check behaviour a user sees on the screen; timings are the fake terminal's business.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from hangar.testing.scenarios import scenario_from_dict
from localrun.sandbox_hub import USER_TOKEN, SandboxHub, in_dir

from .card_kit import PLAN
from .tmux_term import TmuxTerminal

pytestmark = pytest.mark.real_agents

ENTRY = Path(__file__).with_name("menu_entry.py")
READY = "Ask Codex to do anything"
MENU_HELP = "↑/↓ select · Enter run"


def start_codex(hub: SandboxHub, rows: int = 30, columns: int = 100) -> TmuxTerminal:
    hub.sandbox.load(scenario_from_dict({"name": "menu", "turns": [{"text": "Sure."}]}))
    hub.ok("POST", "/api/projects", {"name": "Terminal"})
    plan = hub.root / "plan.md"
    plan.write_text(PLAN, encoding="utf-8")
    env = {**hub.agent_env("codex"), "HANGAR_HOME": str(hub.client_home)}
    argv = [sys.executable, str(ENTRY), "--log", str(hub.root / "entry.log"), "--plan",
            str(plan), "--hub", hub.url, "--token", USER_TOKEN, "--", "codex"]  # fmt: skip
    term = TmuxTerminal(
        hub.root / "tmux", in_dir(hub.work, argv), env, rows=rows, columns=columns,
        sandbox=hub.sandbox,
    )  # fmt: skip
    term.wait_text(READY, 90)
    return term


def type_like_a_person(term: TmuxTerminal, text: str) -> None:
    """One key at a time, each after Codex echoed the previous one: Codex treats a burst of
    keys arriving within a millisecond (as ``send-keys`` delivers them) as a paste and holds
    it for seconds, which no person typing produces."""
    for end in range(1, len(text)):
        term.type(text[end - 1])
        term.wait_text(f"› {text[:end]}")
    term.type(text[-1])


def log_of(hub: SandboxHub) -> list[Any]:
    path = hub.root / "entry.log"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def settled(lines: list[str]) -> bool:
    screen = "\n".join(lines)
    return all(part in screen for part in (READY, "permissions:", "To get started", "fake-model"))


def input_row(lines: list[str]) -> int:
    return max(i for i, line in enumerate(lines) if line.startswith("›"))


def sets_a_background(line: str) -> bool:
    """Whether an SGR sequence in ``line`` sets a background colour (40-47, 48;…, 100-107)."""
    for params in re.findall(r"\x1b\[([0-9;]*)m", line):
        codes = [int(p or 0) for p in params.split(";")]
        i = 0
        while i < len(codes):
            if codes[i] == 38:  # a foreground colour: skip its 5;n or 2;r;g;b arguments
                i += 3 if codes[i + 1 : i + 2] == [5] else 5
                continue
            if codes[i] == 48 or 40 <= codes[i] <= 47 or 100 <= codes[i] <= 107:
                return True
            i += 1
    return False


def test_open_close_and_cursor_restoration(sandbox_hub: SandboxHub) -> None:
    """LR-033..LR-036, LR-039, LR-054, LR-055: `/hangar` opens the menu below Codex (its PTY shrunk,
    its input box still on screen); Esc closes it keeping `/hangar`; after deleting the
    input the screen and the cursor are exactly as before."""
    term = start_codex(sandbox_hub)
    try:
        term.type("x")  # Codex swaps its welcome logo for its tips on the first key
        term.wait_text("› x")
        term.key("BSpace")
        # Codex fills in its header (permissions) and footer (model) once its session is
        # configured, after the first frames; the screen to come back to is the settled one.
        before = term.wait_for(settled, "Codex's settled empty input")
        cursor = term.cursor()
        type_like_a_person(term, "/hangar")
        during = term.wait_text(MENU_HELP)
        assert during[-3].startswith("> /hangarping")
        assert during[-2].startswith("  /hangarcreateissue")
        assert during[-1].startswith(f"  {MENU_HELP}")
        assert "› /hangar" in during[input_row(during)]
        assert input_row(during) < len(during) - 3  # Codex's rows end above the area
        colored = term.lines(escapes=True)
        assert "\x1b[94m> /hangarping" in colored[-3]
        assert "\x1b[7m" not in "".join(colored[-3:])  # no reverse video
        assert not any(map(sets_a_background, colored[-3:]))
        term.key("Escape")
        after = term.wait_gone(MENU_HELP)
        assert "› /hangar" in after[input_row(after)]
        assert term.size() == (30, 100)
        term.key(*["BSpace"] * 7)
        term.wait_screen(before, "the screen from before the menu")
        assert term.cursor() == cursor
        assert log_of(sandbox_hub) == []  # nothing ran
    finally:
        term.close()


def test_tab_completes_and_enter_runs(sandbox_hub: SandboxHub) -> None:
    """LR-038, LR-040, LR-041, LR-044: Tab writes the full command into Codex's input and
    runs nothing; Enter on the typed command runs it and leaves Codex's input empty; Enter
    in the menu runs the selected command (the card)."""
    term = start_codex(sandbox_hub)
    try:
        type_like_a_person(term, "/hangar")
        term.wait_text(MENU_HELP)
        term.key("Tab")
        lines = term.wait_gone(MENU_HELP)
        term.wait_text("› /hangarping")
        assert log_of(sandbox_hub) == []
        term.key("Enter")
        term.wait_for(lambda _: log_of(sandbox_hub) == ["ping"], "the ping command to run")
        lines = term.wait_gone("› /hangarping")
        assert lines[input_row(lines)].startswith("› Ask Codex") or "›" in lines[input_row(lines)]
        type_like_a_person(term, "/hangar")
        term.wait_text(MENU_HELP)
        term.key("Down", "Enter")
        term.wait_text("New issue · 1/2 the plan")
        term.wait_text("# Cache the transcript index")
    finally:
        term.close()


def test_card_creates_the_issue_and_shows_the_notice(sandbox_hub: SandboxHub) -> None:
    """LR-087, LR-088, LR-102, LR-103: the card in a real terminal: the
    project comes from the hub, filtered as typed; the issue is created with the plan as its
    description; the notice with the blue link appears under Codex."""
    hub = sandbox_hub
    term = start_codex(hub)
    try:
        type_like_a_person(term, "/hangar")
        term.wait_text(MENU_HELP)
        term.key("Down", "Enter")
        term.wait_text("1/2 the plan")
        term.key("Enter")
        term.wait_text("2/2 the fields")
        term.key("Down", "Down")
        term.type("term")
        term.wait_text("> Terminal")
        term.key("Enter")
        term.wait_text("Project        Terminal")
        term.key("Down", "Down", "Down", "Down")
        term.wait_text("> [ Create issue ]")
        term.key("Enter")
        term.wait_text("Issue HGR-1 created", 30)
        created = next(e for e in log_of(hub) if isinstance(e, dict) and e.get("key"))
        issue = hub.ok("GET", f"/api/issues/{created['key']}")
        assert issue["description"] == PLAN
        project = hub.ok("GET", "/api/projects")["projects"][0]
        assert issue["projectId"] == project["id"]
        colored = "\n".join(term.lines(escapes=True))
        assert f"\x1b[94m{hub.url}/issues/HGR-1" in colored
        lines = term.lines()
        assert "【Cache the transcript index】Issue HGR-1 created" in lines[-2]
        # Codex is still there: it repaints once it has its full height back (a loaded
        # machine can show the notice before the repaint is complete, so wait for it).
        term.wait_for(lambda rows: any(line.startswith("›") for line in rows), "Codex's input")
    finally:
        term.close()


def test_resize_and_forty_columns(sandbox_hub: SandboxHub) -> None:
    """A resize while the menu is open redraws it for the new size; at 40 columns the menu
    rows fit and the card switches to its vertical layout (LR-081)."""
    term = start_codex(sandbox_hub)
    try:
        type_like_a_person(term, "/hangar")
        term.wait_text(MENU_HELP)
        term.resize(24, 40)
        lines = term.wait_for(
            lambda rows: len(rows) == 24 and rows[-1].startswith("  ↑/↓ select"), "redraw at 40"
        )
        assert lines[-3].startswith("> /hangarping")
        assert all(len(line) <= 40 for line in lines)
        term.key("Down", "Enter")
        term.wait_text("1/2 the plan")
        term.key("Enter")
        lines = term.wait_text("2/2 the fields")
        title = next(i for i, line in enumerate(lines) if line.strip() == "Title")
        assert lines[title + 1].strip().startswith("Cache the")
        term.key("C-c")
        term.wait_gone("New issue")
        assert term.size() == (24, 40)
        term.wait_text("›")
    finally:
        term.close()
