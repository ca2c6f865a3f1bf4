"""The issue confirmation card on the fake terminal, its lists from a real hub process."""

from __future__ import annotations

from hangar.hub_client import HubClient
from hangar.localrun.terminal.issue_draft import ExecutionMode, Origin, Outcome

from .card_kit import PLAN, hub_card
from .fake_terminal import Driver

DOWN, UP, TAB, BACKTAB, ENTER, ESC, CTRL_C = (
    "\x1b[B",
    "\x1b[A",
    "\t",
    "\x1b[Z",
    "\r",
    "\x1b",
    "\x03",
)


def open_card(driver: Driver) -> None:
    driver.type("/hangar", ENTER)
    driver.settle()
    assert "New issue" in driver.text(), driver.text()


def screen_has(driver: Driver, *words: str) -> bool:
    text = driver.text()
    return all(word in text for word in words)


def focus(driver: Driver, name: str) -> None:
    card = driver.commands_card.cards[-1]  # type: ignore[attr-defined]
    target = card.fields().index(name)
    while card.focus != target:
        driver.type(DOWN)


def make_driver(command: object, rows: int = 30, columns: int = 80) -> Driver:
    driver = Driver(rows=rows, columns=columns, commands=command.registry())  # type: ignore[attr-defined]
    driver.commands_card = command  # type: ignore[attr-defined]
    return driver


def test_the_card_fills_the_rows_below_its_margin(hub: HubClient) -> None:
    """LR-046, LR-052, LR-075: wherever the cursor is, the menu and then the card it opens
    start on the same row, after the two margin rows below the cursor (left to the
    provider); the card's last line is the terminal's last row."""
    for history in (1, 12):
        driver = make_driver(hub_card(hub), rows=30)
        driver.provider_writes("".join(f"line {n}\r\n" for n in range(history)))
        driver.settle()
        row = driver.terminal.cursor[0]  # 1-based: lines[row] is the row below the cursor
        driver.type("/hangar")
        driver.settle()
        assert driver.lines()[row + 2].startswith("> /hangarcreateissue"), driver.lines()
        driver.type(ENTER)
        driver.settle()
        lines = driver.lines()
        assert lines[row : row + 2] == ["", ""], lines
        assert lines[row + 2].startswith("New issue · 1/2 the plan"), lines
        assert lines[-1].startswith("↑/↓ PgUp/PgDn scroll"), lines


def test_plan_first_then_fields_and_shift_tab_goes_back(hub: HubClient) -> None:
    """LR-057, LR-076, LR-077, LR-082: the card opens on the whole plan; Enter goes to the
    fields (execution mode, title, project, assignee, labels); Shift+Tab from the first
    field goes back to the plan."""
    command = hub_card(hub)
    driver = make_driver(command)
    open_card(driver)
    assert screen_has(driver, "1/2 the plan", "# Cache the transcript index", "1. Persist")
    assert screen_has(driver, "• keep the append path", "make bench")
    driver.type(ENTER)
    assert screen_has(driver, "2/2 the fields", "Execution", "Title", "Project", "Assignee")
    assert screen_has(driver, "Labels", "More settings", "[ Create issue ]")
    assert screen_has(driver, "Cache the transcript index")  # the title from the plan
    assert not screen_has(driver, "Due date")  # under "More settings" (LR-078)
    driver.type(BACKTAB)
    assert screen_has(driver, "1/2 the plan")


def test_long_plan_scrolls_to_its_last_line(hub: HubClient) -> None:
    """LR-076: a plan longer than the card scrolls; every line can be reached."""
    plan = "# Long plan\n\n" + "\n".join(f"{n}. step number {n}" for n in range(1, 61))
    command = hub_card(hub, plan=plan)
    driver = make_driver(command, rows=24)
    open_card(driver)
    assert screen_has(driver, "1. step number 1")
    assert not screen_has(driver, "step number 60")
    driver.type("\x1b[6~", "\x1b[6~")
    assert not screen_has(driver, "1. step number 1\n")
    driver.type("\x1b[F")  # End
    assert screen_has(driver, "60. step number 60", "of 62)")


def test_fields_come_from_the_hub_and_filter_as_typed(hub: HubClient) -> None:
    """LR-079, LR-087, LR-088: project and labels are the hub's, narrowed as the user types;
    the issue is created with them and its description is the plan's Markdown unchanged."""
    command = hub_card(hub)
    driver = make_driver(command)
    open_card(driver)
    driver.type(ENTER)
    focus(driver, "project")
    driver.type("w")
    assert screen_has(driver, "Web app", "Worker")
    assert not screen_has(driver, "  Docs")
    driver.type("o")
    assert screen_has(driver, "> Worker")
    assert not screen_has(driver, "Web app")
    driver.type(ENTER)
    assert screen_has(driver, "Project        Worker")
    focus(driver, "labels")
    driver.type(ENTER, "b")
    assert screen_has(driver, "[ ] bug", "[ ] backend")
    assert not screen_has(driver, "[ ] ui")
    driver.type(DOWN, UP, ENTER)  # the first match, `backend` (the hub sorts by name)
    assert screen_has(driver, "[x] backend", "[ ] bug")
    driver.type(ESC)
    driver.settle()
    assert screen_has(driver, "Labels         backend")
    focus(driver, "assignee")
    members = hub.get("/api/members")["members"]
    driver.type(members[0]["name"][:3], ENTER)
    focus(driver, "create")
    driver.type(ENTER)
    driver.settle()
    assert [r.outcome for r in command.results] == [Outcome.CREATED]
    key = command.results[0].issue.key  # type: ignore[union-attr]
    issue = hub.get(f"/api/issues/{key}")
    projects = {p["name"]: p["id"] for p in hub.get("/api/projects")["projects"]}
    assert issue["projectId"] == projects["Worker"]
    assert issue["labels"] == ["backend"]
    assert issue["assigneeId"] == members[0]["id"]
    assert issue["title"] == "Cache the transcript index"
    assert issue["description"] == PLAN


def test_failed_create_keeps_every_field_and_retry_succeeds(hub: HubClient) -> None:
    """LR-093, LR-094: the hub refuses (unknown parent issue): the failure page
    offers retry, back to edit and continue discussing; every field is kept; after fixing
    the one field, the issue is created with all the others as they were."""
    command = hub_card(hub)
    driver = make_driver(command)
    open_card(driver)
    driver.type(ENTER)
    focus(driver, "title")
    driver.type("\x15", "Index cache")
    focus(driver, "project")
    driver.type("Doc", ENTER)
    focus(driver, "labels")
    driver.type(ENTER, "ui", ENTER, ESC)
    driver.settle()
    focus(driver, "more")
    driver.type(ENTER)
    focus(driver, "priority")
    driver.type("\x1b[C", "\x1b[C")  # → urgent → high
    focus(driver, "due_date")
    driver.type("2030-01-31")
    focus(driver, "parent_key")
    driver.type("HGR-999")
    focus(driver, "create")
    driver.type(ENTER)
    driver.settle()
    assert screen_has(driver, "Could not create the issue", "Every field is kept")
    assert screen_has(driver, "> Retry", "Back to edit", "Continue discussing")
    assert command.results == []
    driver.type(DOWN, ENTER)
    kept = command.cards[-1].draft
    assert (kept.title, kept.project.name if kept.project else None) == ("Index cache", "Docs")
    assert (kept.labels, kept.priority, kept.due_date) == (["ui"], "high", "2030-01-31")
    assert screen_has(driver, "Index cache", "Docs", "ui", "high", "2030-01-31", "HGR-999")
    focus(driver, "parent_key")
    driver.type("\x15")
    focus(driver, "create")
    driver.type(ENTER)
    driver.settle()
    assert [r.outcome for r in command.results] == [Outcome.CREATED]
    issue = hub.get(f"/api/issues/{command.results[0].issue.key}")  # type: ignore[union-attr]
    assert (issue["title"], issue["labels"], issue["priority"]) == ("Index cache", ["ui"], "high")
    assert issue["dueDate"] == "2030-01-31"
    assert len(command.tried) == 2


def test_a_load_failure_offers_only_retry(hangar_home: object) -> None:
    """LR-096, LR-097: the hub is not there: the card shows the load failure with only
    Retry; Retry tries again; Ctrl+C cancels."""
    client = HubClient("http://127.0.0.1:9", "token", timeout=2)
    command = hub_card(client)
    driver = make_driver(command)
    open_card(driver)
    assert screen_has(driver, "Could not load projects, members and labels", "> Retry")
    assert not screen_has(driver, "Back to edit") and not screen_has(driver, "Continue")
    driver.type(ENTER)
    assert screen_has(driver, "> Retry")
    driver.type(CTRL_C)
    driver.settle()
    assert [r.outcome for r in command.results] == [Outcome.CANCELLED]
    assert "New issue" not in driver.text()
    client.close()


def test_plain_origin_offers_continue_and_ctrl_c_returns(hub: HubClient) -> None:
    """LR-058, LR-083, LR-084: from `/hangarcreateissue` every execution mode and
    "Continue discussing" are offered; Ctrl+C closes the card, the provider goes on."""
    command = hub_card(hub)
    driver = make_driver(command)
    open_card(driver)
    driver.type(ENTER)
    assert screen_has(driver, "[ Continue discussing ]", "continue in this CLI")
    driver.type("\x1b[C")
    assert screen_has(driver, "hand to an agent")
    driver.type("\x1b[C")
    assert screen_has(driver, "only create the issue")
    driver.type(CTRL_C)
    driver.settle()
    assert [r.outcome for r in command.results] == [Outcome.CANCELLED]
    assert not driver.ended
    assert "New issue" not in driver.text()


def test_native_origin_locks_the_mode_and_ctrl_c_ends_the_provider(hub: HubClient) -> None:
    """LR-059, LR-085, LR-086: a native action: mode locked to continuing, no "Continue
    discussing", and Ctrl+C ends the provider."""
    command = hub_card(hub, origin=Origin.NATIVE)
    driver = make_driver(command)
    open_card(driver)
    driver.type(ENTER)
    assert screen_has(driver, "continue in this CLI (set by the CLI's own action)")
    assert not screen_has(driver, "Continue discussing")
    driver.type("\x1b[C", ENTER)
    assert command.cards[-1].draft.mode is ExecutionMode.CONTINUE
    driver.type(CTRL_C)
    driver.settle()
    assert driver.ended
    assert [r.outcome for r in command.results] == [Outcome.CANCELLED]


def test_native_failure_offers_only_retry_and_edit(hub: HubClient) -> None:
    """LR-095: after a failure on the native path: retry and back to edit, nothing else."""
    command = hub_card(hub, origin=Origin.NATIVE)
    driver = make_driver(command)
    open_card(driver)
    driver.type(ENTER)
    focus(driver, "more")
    driver.type(ENTER)
    focus(driver, "parent_key")
    driver.type("HGR-404")
    focus(driver, "create")
    driver.type(ENTER)
    driver.settle()
    assert screen_has(driver, "> Retry", "Back to edit")
    assert not screen_has(driver, "Continue discussing")


def test_narrow_terminal_stacks_labels_above_values(hub: HubClient) -> None:
    """LR-081: at 40 columns each label has its own row with the value below it; nothing
    is wider than the terminal."""
    command = hub_card(hub)
    driver = make_driver(command, rows=30, columns=40)
    open_card(driver)
    driver.type(ENTER)
    lines = driver.lines()
    title_row = next(i for i, line in enumerate(lines) if line.strip() == "Title")
    assert lines[title_row + 1].strip().startswith("Cache the transcript")
    assert all(len(line) <= 40 for line in lines)
    project_row = next(i for i, line in enumerate(lines) if line.strip() == "Project")
    assert lines[project_row + 1].strip() == "(none)"


def test_defaults_are_editable_initial_values(hub: HubClient) -> None:
    """LR-080: a project named on the command line is the initial choice, and can change."""
    from hangar.localrun.terminal.card import Defaults

    command = hub_card(hub, defaults=Defaults(project="worker", labels=("bug",)))
    driver = make_driver(command)
    open_card(driver)
    driver.type(ENTER)
    assert screen_has(driver, "Project        Worker", "Labels         bug")
    focus(driver, "project")
    driver.type("web", ENTER)
    assert screen_has(driver, "Project        Web app")


def test_card_closes_cleanly_and_restores_the_cursor(hub: HubClient) -> None:
    """LR-054, LR-099: after the card (here: cancelled), the screen outside the area is as
    before and the cursor is back on its row and column."""
    command = hub_card(hub)
    driver = make_driver(command)
    driver.type("first question", ENTER)
    before = driver.lines()
    cursor = driver.terminal.cursor
    open_card(driver)
    driver.type(CTRL_C)
    driver.settle()
    assert driver.lines() == before
    assert driver.terminal.cursor == cursor
