"""The card for terminals that cannot show it: one question per line (LR-114).

Plain text in, plain text out, nothing drawn or moved: it works with a screen reader, a pipe
or a dumb terminal, and keeps the terminal's output as it was. The questions follow the card:
the plan, then execution mode (plain origin only), title, project, assignee, labels, and on
request the more settings; project, assignee and labels accept part of a name and list the
matches to pick from (LR-079). An empty answer keeps the shown default; end of input cancels.
A failed create keeps every answer and offers retry, edit (and continue discussing on the
plain path), like the card (LR-093..LR-095). Real errors stay failures (LR-115).
"""

from __future__ import annotations

from collections.abc import Callable

from hangar.errors import HangarError
from hangar.localrun.terminal.card import NO_DEFAULTS, Defaults
from hangar.localrun.terminal.catalog import Catalog, IssueCatalog, filtered, resolve
from hangar.localrun.terminal.issue_draft import (
    PRIORITIES,
    STATUSES,
    CardResult,
    ExecutionMode,
    IssueCreator,
    IssueDraft,
    Option,
    Origin,
    Outcome,
    title_from_plan,
)

Ask = Callable[[str], str | None]
"""Show a question, return the answer line (None at end of input)."""
Say = Callable[[str], None]


class _Cancelled(Exception):
    pass


def prompt_for_issue(
    plan: str,
    catalog: IssueCatalog,
    create: IssueCreator,
    ask: Ask,
    say: Say,
    *,
    origin: Origin = Origin.PLAIN,
    defaults: Defaults = NO_DEFAULTS,
) -> CardResult:
    draft = IssueDraft(plan=plan, title=defaults.title or title_from_plan(plan))
    draft.labels = list(defaults.labels)
    draft.status = defaults.status or draft.status
    draft.priority = defaults.priority or draft.priority
    if not plan.strip():
        say("There is no plan yet, so there is nothing to create an issue from.")
        outcome = Outcome.CONTINUE_DISCUSSION if origin is Origin.PLAIN else Outcome.CANCELLED
        return CardResult(outcome, origin, draft)
    try:
        say("The plan (it becomes the issue's description):")
        for line in plan.splitlines() or ["(the plan is empty)"]:
            say(f"  {line}")
        loaded = _load(catalog, ask, say)
        draft.project = resolve(loaded.projects, defaults.project)
        draft.assignee = resolve(loaded.members, defaults.assignee)
        while True:
            _fields(draft, loaded, origin, ask, say)
            answer = _answer(ask, _confirm_question(origin), "y").lower()
            if answer.startswith("d") and origin is Origin.PLAIN:
                return CardResult(Outcome.CONTINUE_DISCUSSION, origin, draft)
            if not answer.startswith("y"):
                continue  # back to the fields, answers kept
            result = _create(draft, create, origin, ask, say)
            if result is not None:
                return result
    except _Cancelled:
        say("Cancelled.")
        return CardResult(Outcome.CANCELLED, origin, draft)


def _answer(ask: Ask, question: str, default: str = "") -> str:
    reply = ask(question)
    if reply is None:
        raise _Cancelled
    return reply.strip() or default


def _confirm_question(origin: Origin) -> str:
    extra = ", d to continue discussing" if origin is Origin.PLAIN else ""
    return f"Create the issue? [Y to create, n to edit{extra}]: "


def _load(catalog: IssueCatalog, ask: Ask, say: Say) -> Catalog:
    while True:
        try:
            return catalog.load()
        except HangarError as exc:
            say(f"Could not load projects, members and labels: {exc}")
            _answer(ask, "Press Enter to retry: ")


def _create(
    draft: IssueDraft, create: IssueCreator, origin: Origin, ask: Ask, say: Say
) -> CardResult | None:
    while True:
        try:
            issue = create(draft)
        except HangarError as exc:
            say(f"Could not create the issue: {exc}. Every answer is kept.")
            extra = ", c continue discussing" if origin is Origin.PLAIN else ""
            choice = _answer(ask, f"r retry, e edit{extra} [r]: ", "r").lower()
            if choice.startswith("e"):
                return None
            if choice.startswith("c") and origin is Origin.PLAIN:
                return CardResult(Outcome.CONTINUE_DISCUSSION, origin, draft)
            continue
        say(f"【{issue.title}】Issue {issue.key} created")
        say(issue.url)
        return CardResult(Outcome.CREATED, origin, draft, issue)


def _fields(draft: IssueDraft, loaded: Catalog, origin: Origin, ask: Ask, say: Say) -> None:
    if origin is Origin.PLAIN:
        modes = list(ExecutionMode)
        listed = ", ".join(f"{n}) {m.label}" for n, m in enumerate(modes, 1))
        current = modes.index(draft.mode) + 1
        picked = _answer(ask, f"Execution mode: {listed} [{current}]: ", str(current))
        if picked.isdigit() and 1 <= int(picked) <= len(modes):
            draft.mode = modes[int(picked) - 1]
    draft.title = _answer(ask, f"Title [{draft.title}]: ", draft.title)
    draft.project = _pick(ask, say, "Project", loaded.projects, draft.project)
    draft.assignee = _pick(ask, say, "Assignee", loaded.members, draft.assignee)
    draft.labels = _labels(ask, say, loaded.labels, draft.labels)
    if _answer(ask, "More settings (status, priority, dates, parent)? [y/N]: ", "n")[:1] in "yY":
        draft.status = _fixed(ask, say, "Status", STATUSES, draft.status)
        draft.priority = _fixed(ask, say, "Priority", PRIORITIES, draft.priority)
        draft.start_date = _text(ask, "Start date YYYY-MM-DD", draft.start_date)
        draft.due_date = _text(ask, "Due date YYYY-MM-DD", draft.due_date)
        draft.parent_key = _text(ask, "Parent issue", draft.parent_key)
    for name, problem in draft.problems().items():
        say(f"{name.replace('_', ' ')}: {problem}")
        if name == "assignee":
            agents = [o for o in loaded.members if o.kind == "agent"]
            draft.assignee = _pick(ask, say, "Agent", agents, None)
            continue
        setattr(draft, name, _answer(ask, f"{name.replace('_', ' ')}: ", ""))


def _pick(
    ask: Ask, say: Say, what: str, options: list[Option], current: Option | None
) -> Option | None:
    shown = current.name if current is not None else "none"
    while True:
        typed = _answer(ask, f"{what} [{shown}] (part of a name, - for none): ", "")
        if not typed:
            return current
        if typed == "-":
            return None
        matches = filtered(options, typed)
        if len(matches) == 1:
            return matches[0]
        if not matches:
            say(f"No {what.lower()} matches {typed!r}.")
            continue
        for number, option in enumerate(matches, 1):
            say(f"  {number}) {option.name}" + (f"  {option.detail}" if option.detail else ""))
        picked = _answer(ask, "Number: ", "")
        if picked.isdigit() and 1 <= int(picked) <= len(matches):
            return matches[int(picked) - 1]


def _labels(ask: Ask, say: Say, options: list[Option], current: list[str]) -> list[str]:
    shown = ", ".join(current) or "none"
    while True:
        typed = _answer(ask, f"Labels [{shown}] (comma-separated, - for none): ", "")
        if not typed:
            return current
        if typed == "-":
            return []
        chosen: list[str] = []
        for part in (p.strip() for p in typed.split(",") if p.strip()):
            exact = resolve(options, part)
            matches = [exact] if exact is not None else filtered(options, part)
            if len(matches) != 1:
                names = ", ".join(o.name for o in matches) or "nothing"
                say(f"{part!r} matches {names}; name one label exactly.")
                break
            chosen.append(matches[0].name)
        else:
            return chosen


def _fixed(ask: Ask, say: Say, what: str, values: tuple[str, ...], current: str) -> str:
    while True:
        typed = _answer(ask, f"{what} ({', '.join(values)}) [{current}]: ", current)
        if typed in values:
            return typed
        say(f"{what} must be one of {', '.join(values)}.")


def _text(ask: Ask, what: str, current: str) -> str:
    typed = _answer(ask, f"{what} [{current or 'none'}] (- for none): ", current)
    return "" if typed == "-" else typed
