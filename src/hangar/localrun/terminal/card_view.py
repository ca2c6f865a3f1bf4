"""How the card looks: a header row, a body, a help row, in exactly the rows it was given.

Wide terminals get one row per field, labels padded to the longest label shown; terminals
narrower than :data:`NARROW` columns get the vertical layout: the label on its own row and the
value wrapped below it (LR-081). No width is fixed: everything is measured from the text and
the columns at hand. The focused row has the menu's ``>`` marker and bright blue; no reverse
video, no background.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hangar.localrun.terminal import ansi
from hangar.localrun.terminal.issue_draft import Origin
from hangar.localrun.terminal.plan_view import plan_lines

if TYPE_CHECKING:
    from hangar.localrun.terminal.card import IssueCard, Picker

NARROW = 60
LABELS = {
    "mode": "Execution",
    "title": "Title",
    "project": "Project",
    "assignee": "Assignee",
    "labels": "Labels",
    "more": "More settings",
    "status": "Status",
    "priority": "Priority",
    "start_date": "Start date",
    "due_date": "Due date",
    "parent_key": "Parent issue",
}


def render(card: IssueCard, columns: int, rows: int) -> list[str]:
    from hangar.localrun.terminal.card import Page

    body_rows = max(rows - 2, 1)
    if card.page is Page.PLAN:
        header, body, help_text = _plan(card, columns, body_rows)
    elif card.page is Page.FORM and card.picker is not None:
        header, body, help_text = _picker(card.picker, columns, body_rows)
    elif card.page is Page.FORM:
        header, body, help_text = _form(card, columns, body_rows)
    elif card.page is Page.FAILED:
        header = "New issue · not created"
        body = [*ansi.wrap(f"Could not create the issue: {card.message}", columns)]
        body += ["Every field is kept.", ""]
        body += _choices(card.failure_choices(), card.choice, columns)
        help_text = "↑/↓ choose · Enter · Shift+Tab back to edit · " + _cancel(card)
    elif card.page is Page.EMPTY:
        header = "New issue · nothing to create"
        body = [
            *ansi.wrap(
                "There is no plan yet, so there is nothing to create an issue from.", columns
            )
        ]
        if card.origin is Origin.PLAIN:
            body += ansi.wrap("Discuss the plan with the agent, then try again.", columns)
            body += ["", *_choices(["Continue discussing"], 0, columns)]
            help_text = "Enter continue discussing · " + _cancel(card)
        else:
            body += ["", *_choices(["End the CLI (the discussion is kept)"], 0, columns)]
            help_text = "Enter or Ctrl+C end the CLI; the discussion is kept"
    elif card.page is Page.LOAD_FAILED:
        header = "New issue · cannot load"
        message = f"Could not load projects, members and labels: {card.message}"
        body = [*ansi.wrap(message, columns), "", *_choices(["Retry"], 0, columns)]
        help_text = "Enter retry · " + _cancel(card)
    else:
        header, body, help_text = "New issue", [card.message], _cancel(card)
    lines = [ansi.bold(ansi.fit(header, columns)), *body[:body_rows]]
    lines += [""] * (body_rows - len(body[:body_rows]))
    if rows >= 3:
        lines.append(ansi.fit(help_text, columns))
    return [ansi.fit(line, columns) for line in lines[:rows]]


def _cancel(card: IssueCard) -> str:
    if card.origin is Origin.NATIVE:
        return "Ctrl+C cancel and end the CLI"
    return "Ctrl+C back to the discussion"


def _plan(card: IssueCard, columns: int, body_rows: int) -> tuple[str, list[str], str]:
    lines = plan_lines(card.draft.plan, columns)
    card.plan_rows = body_rows
    card.scroll = min(card.scroll, max(len(lines) - body_rows, 0))
    shown = lines[card.scroll : card.scroll + body_rows]
    last = card.scroll + len(shown)
    header = f"New issue · 1/2 the plan (lines {card.scroll + 1}–{last} of {len(lines)})"
    help_text = "↑/↓ PgUp/PgDn scroll · Enter fields · " + _cancel(card)
    return header, shown, help_text


def value_of(card: IssueCard, name: str) -> str:
    draft = card.draft
    if name == "mode":
        locked = " (set by the CLI's own action)" if card.origin is Origin.NATIVE else ""
        return draft.mode.label + locked
    if name in ("project", "assignee"):
        option = getattr(draft, name)
        return option.name if option is not None else "(none)"
    if name == "labels":
        return ", ".join(draft.labels) or "(none)"
    if name == "more":
        return "▾ shown" if card.more else "▸ Enter to show"
    if name == "status":
        return draft.status.replace("_", " ")
    return str(getattr(draft, name))


def _form(card: IssueCard, columns: int, body_rows: int) -> tuple[str, list[str], str]:
    names = card.fields()
    focus = min(card.focus, len(names) - 1)
    narrow = columns < NARROW
    width = max(ansi.width(LABELS.get(n, "")) for n in names)
    blocks: list[list[str]] = []
    for index, name in enumerate(names):
        focused = index == focus
        marker = "> " if focused else "  "
        if name in ("create", "continue_discussing"):
            text = "[ Create issue ]" if name == "create" else "[ Continue discussing ]"
            block = [marker + text]
        else:
            value = value_of(card, name)
            if focused and name in ("title", "start_date", "due_date", "parent_key"):
                value += "▏"
            label = LABELS[name]
            if narrow:
                block = [marker + label]
                block += ["    " + line for line in ansi.wrap(value, max(columns - 4, 8))]
            else:
                lead = f"{marker}{label.ljust(width)}  "
                wrapped = ansi.wrap(value, max(columns - ansi.width(lead), 8))
                block = [lead + wrapped[0], *(" " * ansi.width(lead) + w for w in wrapped[1:])]
            if name in card.problems:
                block.append(f"    ! {card.problems[name]}")
        if focused:
            block = [ansi.blue(line) for line in block]
        blocks.append(block)
    top = sum(len(b) for b in blocks[:focus])
    bottom = top + len(blocks[focus])
    offset = max(0, bottom - body_rows) if bottom > body_rows else 0
    offset = min(offset, top)
    body = [line for block in blocks for line in block][offset : offset + body_rows]
    help_text = "↑/↓ Tab move · Enter pick · Shift+Tab back · " + _cancel(card)
    return "New issue · 2/2 the fields", body, help_text


def _picker(picker: Picker, columns: int, body_rows: int) -> tuple[str, list[str], str]:
    visible = picker.visible()
    header = f"New issue · {LABELS[picker.name]}: type to filter"
    body = [f"Filter: {picker.typed}▏"]
    if not visible:
        body.append("  (nothing matches)")
    room = max(body_rows - 1, 1)
    selected = min(picker.selected, max(len(visible) - 1, 0))
    start = max(0, selected - room + 1)
    for index, option in enumerate(visible[start : start + room], start):
        box = ("[x] " if option.name in picker.chosen else "[ ] ") if picker.multi else ""
        detail = f"  {option.detail}" if option.detail else ""
        line = f"{box}{option.name}{detail}"
        body.append(ansi.blue(f"> {line}") if index == selected else f"  {line}")
    action = "Enter toggle · Esc done" if picker.multi else "Enter choose · Esc keep"
    return header, body, f"type to filter · ↑/↓ · {action}"


def _choices(choices: list[str], selected: int, columns: int) -> list[str]:
    return [
        ansi.blue(ansi.fit(f"> {c}", columns)) if i == selected else ansi.fit(f"  {c}", columns)
        for i, c in enumerate(choices)
    ]
