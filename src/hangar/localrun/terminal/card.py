"""The issue confirmation card (LR-057..LR-059, LR-074..LR-099): an overlay state machine.

Pages, in order: the whole plan, scrollable (LR-076); the fields — execution mode, title,
project, assignee, labels, then "More settings" with status, priority, start and due dates
and parent issue (LR-077, LR-078); project, assignee and labels are picked from the hub's
lists filtered as the user types (LR-079). Shift+Tab goes back a field, and from the first
field back to the plan (LR-082).

``Origin.PLAIN`` (``/hangarcreateissue``) offers every execution mode and "Continue
discussing"; Ctrl+C returns to the discussion (LR-083, LR-084). ``Origin.NATIVE`` (a
provider's implement-plan action) locks the mode to continuing and offers no "Continue
discussing"; Ctrl+C ends the provider (LR-059, LR-085, LR-086).

The card never creates the issue itself: it calls the caller's ``create`` with the draft. A
failure keeps every field and offers retry and back-to-edit (and "Continue discussing" on the
plain path, LR-093..LR-095); a catalog that fails to load gets a page with only Retry
(LR-096). Ctrl+C cancels from every page (LR-097). The result goes to ``on_result`` after the
area is gone.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field

from hangar.errors import HangarError
from hangar.localrun.terminal import card_view
from hangar.localrun.terminal.catalog import Catalog, IssueCatalog, filtered, resolve
from hangar.localrun.terminal.issue_draft import (
    PRIORITIES,
    STATUSES,
    CardResult,
    CreatedIssue,
    ExecutionMode,
    IssueCreator,
    IssueDraft,
    Option,
    Origin,
    Outcome,
    title_from_plan,
)
from hangar.localrun.terminal.keys import Kind, Token
from hangar.localrun.terminal.notice import success_lines
from hangar.localrun.terminal.overlay import Action, Busy, Close, Host, Space, Stay

TEXT_FIELDS = ("title", "start_date", "due_date", "parent_key")
PICK_FIELDS = ("mode", "project", "assignee", "labels", "status", "priority")
MORE_FIELDS = ("status", "priority", "start_date", "due_date", "parent_key")


class Page(enum.Enum):
    PLAN = "plan"
    FORM = "form"
    FAILED = "failed"
    LOAD_FAILED = "load_failed"
    WORKING = "working"
    EMPTY = "empty"
    """There is no plan: nothing to create (the discussion goes on, or the CLI ends)."""


@dataclass(frozen=True)
class Defaults:
    """Editable initial values (LR-080): names or ids for project and assignee."""

    title: str = ""
    project: str = ""
    assignee: str = ""
    labels: tuple[str, ...] = ()
    status: str = ""
    priority: str = ""
    mode: ExecutionMode | None = None


@dataclass
class Picker:
    name: str
    options: list[Option]
    multi: bool
    typed: str = ""
    selected: int = 0
    chosen: set[str] = field(default_factory=set)

    def visible(self) -> list[Option]:
        return filtered(self.options, self.typed)


NO_DEFAULTS = Defaults()


def finish_card(result: CardResult, host: Host) -> None:
    """What the seed asks after the card (LR-090..LR-092, LR-104, LR-109): the notice in two
    reserved rows when the work goes on in this CLI; otherwise the provider ends and the
    notice follows its exit. A native Ctrl+C ends the provider; a plain one goes back."""
    if result.outcome is Outcome.CREATED and result.issue is not None:
        lines = success_lines(result.issue.title, result.issue.key, result.issue.url)
        if result.draft.mode is ExecutionMode.CONTINUE:
            host.show_notice(lines, keep_rows=True)
        else:
            host.show_notice(lines, keep_rows=False)
            host.end_provider()
    elif result.outcome is Outcome.CANCELLED and result.origin is Origin.NATIVE:
        host.end_provider()


class IssueCard:
    fill = True

    def __init__(
        self,
        plan: str,
        catalog: IssueCatalog,
        create: IssueCreator,
        *,
        origin: Origin = Origin.PLAIN,
        defaults: Defaults = NO_DEFAULTS,
        on_result: Callable[[CardResult, Host], None] = finish_card,
    ) -> None:
        self.catalog_source = catalog
        self.create = create
        self.origin = origin
        self.defaults = defaults
        self.on_result = on_result
        mode = ExecutionMode.CONTINUE if origin is Origin.NATIVE else defaults.mode
        self.draft = IssueDraft(
            plan=plan,
            title=defaults.title or title_from_plan(plan),
            mode=mode or ExecutionMode.CONTINUE,
            labels=list(defaults.labels),
            status=defaults.status or "todo",
            priority=defaults.priority or "none",
        )
        self.catalog = Catalog([], [], [])
        self.page = Page.PLAN
        self.scroll = 0
        self.focus = 0
        self.more = False
        self.picker: Picker | None = None
        self.problems: dict[str, str] = {}
        self.message = ""
        self.choice = 0
        self.plan_rows = 10  # updated by each render
        self.result: CardResult | None = None
        if not plan.strip():
            self.page = Page.EMPTY
            return
        self.load()

    # -- data ---------------------------------------------------------------------------
    def load(self) -> Action:
        """(Re)load the hub's lists; a failure shows the page that offers only Retry."""
        try:
            self.catalog = self.catalog_source.load()
        except HangarError as exc:
            self.page, self.message = Page.LOAD_FAILED, str(exc)
            return Stay()
        if self.draft.project is None:
            self.draft.project = resolve(self.catalog.projects, self.defaults.project)
        if self.draft.assignee is None:
            self.draft.assignee = resolve(self.catalog.members, self.defaults.assignee)
        if self.page is Page.LOAD_FAILED:
            self.page, self.message = Page.PLAN, ""
        return Stay()

    def fields(self) -> list[str]:
        """The form's rows, in order."""
        rows = ["mode", "title", "project", "assignee", "labels", "more"]
        if self.more:
            rows += list(MORE_FIELDS)
        rows.append("create")
        if self.origin is Origin.PLAIN:
            rows.append("continue_discussing")
        return rows

    def failure_choices(self) -> list[str]:
        choices = ["Retry", "Back to edit"]
        return [*choices, "Continue discussing"] if self.origin is Origin.PLAIN else choices

    # -- Overlay ------------------------------------------------------------------------
    def rows(self, space: Space) -> int:
        return space.rows

    def render(self, columns: int, rows: int) -> list[str]:
        return card_view.render(self, columns, rows)

    def handle(self, token: Token) -> Action:
        if token.is_key("ctrl-c"):
            return self._done(Outcome.CANCELLED)
        if token.kind not in (Kind.TEXT, Kind.KEY):
            return Stay()
        if self.page is Page.EMPTY:
            if token.is_key("enter", "escape"):
                outcome = Outcome.CONTINUE_DISCUSSION
                return self._done(outcome if self.origin is Origin.PLAIN else Outcome.CANCELLED)
            return Stay()
        if self.page is Page.PLAN:
            return self._plan_key(token)
        if self.page is Page.LOAD_FAILED:
            return Busy(self.load) if token.is_key("enter") else Stay()
        if self.page is Page.FAILED:
            return self._failure_key(token)
        if self.picker is not None:
            return self._picker_key(self.picker, token)
        return self._form_key(token)

    # -- pages --------------------------------------------------------------------------
    def _plan_key(self, token: Token) -> Action:
        page = max(self.plan_rows - 1, 1)
        moves = {"up": -1, "down": 1, "pageup": -page, "pagedown": page}
        if token.kind is Kind.KEY and token.name in moves:
            self.scroll = max(self.scroll + moves[token.name], 0)
        elif token.kind is Kind.TEXT and token.name == " ":
            self.scroll += page
        elif token.is_key("home"):
            self.scroll = 0
        elif token.is_key("end"):
            self.scroll = 1 << 30
        elif token.is_key("enter", "tab"):
            self.page, self.focus = Page.FORM, 0
        return Stay()

    def _form_key(self, token: Token) -> Action:
        rows = self.fields()
        current = rows[min(self.focus, len(rows) - 1)]
        if token.is_key("down", "tab"):
            self.focus = (self.focus + 1) % len(rows)
        elif token.is_key("up"):
            self.focus = (self.focus - 1) % len(rows)
        elif token.is_key("backtab", "escape"):
            if self.focus == 0:
                self.page = Page.PLAN
            else:
                self.focus -= 1
        elif token.is_key("left", "right") and current in ("mode", "status", "priority"):
            self._cycle(current, 1 if token.name == "right" else -1)
        elif current in TEXT_FIELDS and (token.kind is Kind.TEXT or token.is_key("backspace")):
            value = getattr(self.draft, current)
            value = value[:-1] if token.is_key("backspace") else value + token.name
            setattr(self.draft, current, value)
            self.problems.pop(current, None)
        elif current in TEXT_FIELDS and token.is_key("ctrl-u"):
            setattr(self.draft, current, "")
        elif current in PICK_FIELDS and token.kind is Kind.TEXT:
            self._open_picker(current, token.name)
        elif token.is_key("enter"):
            return self._enter(current, len(rows))
        return Stay()

    def _enter(self, current: str, count: int) -> Action:
        if current in PICK_FIELDS:
            self._open_picker(current, "")
        elif current == "more":
            self.more = not self.more
        elif current == "create":
            return self._submit()
        elif current == "continue_discussing":
            return self._done(Outcome.CONTINUE_DISCUSSION)
        else:
            self.focus = min(self.focus + 1, count - 1)
        return Stay()

    def _submit(self) -> Action:
        self.problems = self.draft.problems()
        if self.problems:
            first = next(iter(self.problems))
            if first in MORE_FIELDS:
                self.more = True
            self.focus = self.fields().index(first)
            return Stay()
        self.page, self.message = Page.WORKING, "Creating the issue…"
        return Busy(self._create)

    def _create(self) -> Action:
        try:
            issue = self.create(self.draft)
        except HangarError as exc:
            self.page, self.message, self.choice = Page.FAILED, str(exc), 0
            return Stay()
        return self._done(Outcome.CREATED, issue)

    def _failure_key(self, token: Token) -> Action:
        choices = self.failure_choices()
        if token.is_key("up", "down"):
            self.choice = (self.choice + (1 if token.name == "down" else -1)) % len(choices)
        elif token.is_key("backtab"):
            self.page = Page.FORM
        elif token.is_key("enter"):
            picked = choices[self.choice]
            if picked == "Retry":
                self.page, self.message = Page.WORKING, "Creating the issue…"
                return Busy(self._create)
            if picked == "Back to edit":
                self.page = Page.FORM
                return Stay()
            return self._done(Outcome.CONTINUE_DISCUSSION)
        return Stay()

    # -- choices ------------------------------------------------------------------------
    def options_for(self, name: str) -> list[Option]:
        if name == "mode":
            modes = list(ExecutionMode) if self.origin is Origin.PLAIN else [ExecutionMode.CONTINUE]
            return [Option(mode.value, mode.label) for mode in modes]
        if name == "status":
            return [Option(s, s.replace("_", " ")) for s in STATUSES]
        if name == "priority":
            return [Option(p, p) for p in PRIORITIES]
        none = [Option("", "(none)")]
        if name == "project":
            return none + self.catalog.projects
        if name == "assignee":
            return none + self.catalog.members
        return list(self.catalog.labels)

    def _cycle(self, name: str, step: int) -> None:
        options = self.options_for(name)
        if len(options) < 2:
            return  # the native path's locked mode
        ids = [option.id for option in options]
        current = self.draft.mode.value if name == "mode" else getattr(self.draft, name)
        position = (ids.index(current) + step) % len(ids) if current in ids else 0
        self._choose(name, options[position])

    def _open_picker(self, name: str, typed: str) -> None:
        options = self.options_for(name)
        if name == "mode" and len(options) < 2:
            return
        picker = Picker(name, options, multi=name == "labels", typed=typed)
        picker.chosen = set(self.draft.labels)
        self.picker = picker

    def _picker_key(self, picker: Picker, token: Token) -> Action:
        visible = picker.visible()
        if token.kind is Kind.TEXT:
            picker.typed += token.name
            picker.selected = 0
        elif token.is_key("backspace"):
            picker.typed = picker.typed[:-1]
            picker.selected = 0
        elif token.is_key("ctrl-u"):
            picker.typed, picker.selected = "", 0
        elif token.is_key("up", "down") and visible:
            step = 1 if token.name == "down" else -1
            picker.selected = (picker.selected + step) % len(visible)
        elif token.is_key("enter") and visible:
            option = visible[min(picker.selected, len(visible) - 1)]
            if picker.multi:
                picker.chosen ^= {option.name}
                self.draft.labels = [o.name for o in picker.options if o.name in picker.chosen]
            else:
                self._choose(picker.name, option)
                self.picker = None
        elif token.is_key("escape", "tab", "backtab"):
            self.picker = None
        return Stay()

    def _choose(self, name: str, option: Option) -> None:
        if name == "mode":
            self.draft.mode = ExecutionMode(option.id)
        elif name in ("status", "priority"):
            setattr(self.draft, name, option.id)
        else:
            setattr(self.draft, name, option if option.id else None)

    # -- the end ------------------------------------------------------------------------
    def _done(self, outcome: Outcome, issue: CreatedIssue | None = None) -> Action:
        result = self.result = CardResult(outcome, self.origin, self.draft, issue)
        return Close(after=lambda host: self.on_result(result, host))
