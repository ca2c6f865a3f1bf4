"""The engine between the user's terminal and the provider's PTY, without any I/O of its own.

:class:`Interposer` is fed three kinds of events — bytes the user typed
(:meth:`~Interposer.user_input`), bytes the provider wrote (:meth:`~Interposer.provider_output`),
a new terminal size (:meth:`~Interposer.resized`) — plus :meth:`~Interposer.tick` at
:meth:`~Interposer.next_deadline`, and acts only through :class:`TerminalPorts`. Time comes
from an injectable :class:`~hangar.localrun.terminal.clock.Clock`. The PTY runner drives it with
real file descriptors; the fake-terminal tests drive it with a VT emulator and a manual clock.

The life of the menu:

1. every token is forwarded to the provider first (LR-027) and tracked on the edit line;
2. when, after a character, Backspace or a paste end, the line equals ``/hangar`` (LR-011..
   LR-016), the menu is *armed*: the provider's echo is awaited (10 ms of quiet after new
   visible output, at most 100 ms, LR-028..LR-031; a frame that only moves the cursor is not
   an echo);
3. the area is prepared (main screen: the cursor position is asked of the terminal; alternate
   screen: the provider's PTY is shrunk and its repaint awaited) and drawn, and from then on the
   provider's output is held, not shown (LR-032);
4. keys go to the overlay; terminal replies and control strings still go to the provider
   unchanged and never close it (LR-021, LR-023); focus and mouse events are dropped (LR-025,
   LR-026);
5. closing deletes the area, restores the cursor, then writes the held output.

Without a menu (``menu=False``: non-interactive, or a provider that cannot be paused) Tab after
``/hangar…`` still completes and Enter on a full command name still runs it (LR-043..LR-045).
"""

from __future__ import annotations

import enum
from typing import Protocol

from hangar.localrun.terminal import ansi
from hangar.localrun.terminal.area import MARGIN, Area, InlineArea, ShrinkArea
from hangar.localrun.terminal.clock import Clock
from hangar.localrun.terminal.commands import TRIGGER, CommandRegistry
from hangar.localrun.terminal.edit_line import EditLine
from hangar.localrun.terminal.keys import InputScanner, Kind, Token
from hangar.localrun.terminal.menu import Menu
from hangar.localrun.terminal.notice import (
    ROWS as NOTICE_ROWS,
)
from hangar.localrun.terminal.notice import (
    NoticeStep,
    ReservedNotice,
    release_main_screen,
    reserve_main_screen,
)
from hangar.localrun.terminal.overlay import (
    Action,
    Busy,
    Close,
    Complete,
    Overlay,
    PassThrough,
    Run,
    Space,
    Stay,
)
from hangar.localrun.terminal.screen_mode import ScreenModeTracker, split_queries
from hangar.localrun.terminal.timing import REPAINT_CAP, REPAINT_QUIET, QuietWait

CTRL_U = b"\x15"
CURSOR_REPORT_TIMEOUT = 0.5
"""A terminal that has not answered the cursor query by then gets no menu (LR-043)."""
HELD_LIMIT = 4 << 20
"""Past this much held provider output the runner stops reading it (the PTY back-pressures)."""


class TerminalPorts(Protocol):
    def to_terminal(self, data: bytes) -> None: ...

    def to_provider(self, data: bytes) -> None: ...

    def resize_provider(self, rows: int, columns: int) -> None: ...

    def end_provider(self) -> None: ...


class Phase(enum.Enum):
    IDLE = "idle"
    ARMED = "armed"
    """An overlay waits for the provider's echo to settle."""
    PREPARING = "preparing"
    """Waiting for the cursor report (main screen) or the provider's repaint (alternate)."""
    OPEN = "open"


class Interposer:
    def __init__(
        self,
        ports: TerminalPorts,
        commands: CommandRegistry,
        clock: Clock,
        size: tuple[int, int],
        *,
        menu: bool = True,
    ) -> None:
        self.ports = ports
        self.commands = commands
        self.clock = clock
        self.rows, self.columns = size
        self.menu_enabled = menu and not commands.empty
        self.scanner = InputScanner()
        self.line = EditLine()
        self.screen = ScreenModeTracker()
        self.phase = Phase.IDLE
        self.overlay: Overlay | None = None
        self.area: Area | None = None
        self.wait: QuietWait | None = None
        self.cursor_deadline: float | None = None
        self.queued: list[Token] = []
        self.held = bytearray()
        self.notice: ReservedNotice | None = None
        self.notice_alternate = False
        self.after_exit: list[list[str]] = []
        self.provider_size = size
        self.settling: QuietWait | None = None
        self.pending_keys = bytearray()
        self.waiting_overlays: list[Overlay] = []
        self._recheck = False

    # -- events ---------------------------------------------------------------------------
    def user_input(self, data: bytes) -> None:
        now = self.clock.now()
        self._tokens(self.scanner.feed(data, now), now)

    def provider_output(self, data: bytes) -> None:
        now = self.clock.now()
        self.screen.feed(data)
        if self._holding():
            queries, rest = split_queries(data)
            if queries:
                self.ports.to_terminal(queries)
            self.held += rest
            return
        self.ports.to_terminal(data)
        # The echo is visible output (LR-028); in a repaint any output counts.
        echo = self.phase is Phase.ARMED and ansi.draws_something(data)
        if self.wait is not None and (echo or self.phase is Phase.PREPARING):
            self.wait.output(now)
        if self.notice is not None:
            self.notice.output(now)
        if self.settling is not None:
            self.settling.output(now)

    def resized(self, rows: int, columns: int) -> None:
        now = self.clock.now()
        self.rows, self.columns = rows, columns
        overlay = self.overlay
        if self.phase in (Phase.PREPARING, Phase.OPEN) and overlay is not None:
            self._close_area()
            self._arm(overlay, QuietWait(now, REPAINT_QUIET, REPAINT_CAP))
        else:
            self._apply_provider_size()
        if self.notice is not None and not self.notice.released:
            self.notice.output(now)

    def tick(self) -> None:
        now = self.clock.now()
        if self.settling is not None and self.settling.ready(now):
            self.settling = None
            keys, self.pending_keys = bytes(self.pending_keys), bytearray()
            if keys:
                self.ports.to_provider(keys)
        self._tokens(self.scanner.flush(now), now)
        if self.waiting_overlays and self.phase is Phase.IDLE and self.overlay is None:
            self._arm(self.waiting_overlays.pop(0), QuietWait(now))
        if self.phase is Phase.ARMED and self.wait is not None and self.wait.ready(now):
            self._prepare(now)
        elif self.phase is Phase.PREPARING:
            if self.cursor_deadline is not None and now >= self.cursor_deadline:
                self.menu_enabled = False  # the terminal does not answer: no menu from now on
                self._abandon(now)
            elif self.cursor_deadline is None and self.wait is not None and self.wait.ready(now):
                self._show(now)
        self._notice_step(now)

    def next_deadline(self) -> float | None:
        times = [self.scanner.deadline()]
        if self.waiting_overlays and self.phase is Phase.IDLE:
            times.append(self.clock.now())
        if self.phase in (Phase.ARMED, Phase.PREPARING) and self.wait is not None:
            times.append(self.wait.deadline())
        times.append(self.cursor_deadline)
        if self.settling is not None:
            times.append(self.settling.deadline())
        if self.notice is not None and not self._holding():
            times.append(self.notice.deadline())
        found = [t for t in times if t is not None]
        return min(found) if found else None

    @property
    def accepting_output(self) -> bool:
        return len(self.held) < HELD_LIMIT

    def provider_exited(self) -> None:
        """The provider ended and its output is all written: clean up, then print the
        notices that wait for this moment (LR-109)."""
        self.close()
        for lines in self.after_exit:
            self.ports.to_terminal(("\r\n" + "\r\n".join(lines) + "\r\n").encode())
        self.after_exit.clear()

    def close(self) -> None:
        """Remove whatever hangar drew and give the provider its rows back; idempotent, safe
        on every way out (LR-099). Keys still held for the provider are sent."""
        if self.area is not None:
            self._close_area()
        self.overlay, self.wait, self.cursor_deadline = None, None, None
        self.phase = Phase.IDLE
        self._release_notice()
        if self.held:
            self.ports.to_terminal(bytes(self.held))
            self.held.clear()
        self.settling = None
        if self.pending_keys:
            self.ports.to_provider(bytes(self.pending_keys))
            self.pending_keys.clear()

    def open_overlay(self, overlay: Overlay) -> None:
        """Open ``overlay`` as a command would (a provider's own implement-plan action opens
        the card this way). A menu that is up gives way to it; another card finishes first,
        then this one opens."""
        now = self.clock.now()
        if isinstance(self.overlay, Menu):
            if self.phase is Phase.ARMED:
                self._disarm()
            elif self.phase is Phase.OPEN:
                self._finish()
            elif self.phase is Phase.PREPARING:
                self._abandon(now)
        if self.phase is Phase.IDLE and self.overlay is None:
            self._arm(overlay, QuietWait(now))
        else:
            self.waiting_overlays.append(overlay)

    # -- Host (what commands and overlays may ask) ----------------------------------------
    def end_provider(self) -> None:
        self.ports.end_provider()

    def show_notice(self, lines: list[str], *, keep_rows: bool) -> None:
        if not keep_rows:
            self.after_exit.append(lines)
            return
        self._release_notice()
        self.notice = ReservedNotice(lines, self.clock.now())
        self.notice_alternate = self.screen.alternate
        if not self.notice_alternate:
            self.ports.to_terminal(reserve_main_screen(self.rows).encode())
        self._apply_provider_size()

    # -- input ----------------------------------------------------------------------------
    def _tokens(self, tokens: list[Token], now: float) -> None:
        for token in tokens:
            self._token(token, now)
        if self._recheck:
            self._recheck = False
            if self.menu_enabled and self.phase is Phase.IDLE and self.line.equals(TRIGGER):
                self._arm(Menu(list(self.commands)), QuietWait(now))

    def _token(self, token: Token, now: float) -> None:
        if self.cursor_deadline is not None and token.cursor_position() is not None:
            self._cursor_reported(token, now)
            return
        if token.kind in (Kind.REPLY, Kind.CONTROL_STRING):
            self.ports.to_provider(token.raw)  # never ours, never input (LR-021..LR-023)
            return
        waiting = self.phase is Phase.PREPARING or (
            self.phase is Phase.ARMED and not isinstance(self.overlay, Menu)
        )
        if self.phase is Phase.OPEN or waiting:
            if token.kind in (Kind.FOCUS, Kind.MOUSE):
                return  # dropped while an overlay is up, never forwarded later (LR-025/026)
            if waiting:
                self.queued.append(token)
            else:
                self._overlay_key(token, now)
            return
        self._ordinary(token, now)

    def _ordinary(self, token: Token, now: float) -> None:
        """Input on its way to the provider, with Tab completion and typed commands."""
        line = self.line
        if token.is_key("tab") and line.known and not line.in_paste:
            command = self.commands.completion(line.text)
            if command is not None:
                self._disarm()
                self._complete(command.name)
                return
        if token.is_key("enter") and line.known and not line.in_paste:
            command = self.commands.named(line.text)
            if command is not None:
                self._disarm()
                self._run(command.name, now)
                return
        self._send_keys(token.raw)
        if line.apply(token):
            self._recheck = True
        if self.phase is Phase.ARMED and not line.equals(TRIGGER):
            self._disarm()

    def _send_keys(self, data: bytes) -> None:
        """Keys for the provider; held while it repaints after getting its full height back
        (a TUI busy with its resize may drop keys), then sent in order."""
        if self.settling is not None:
            self.pending_keys += data
        else:
            self.ports.to_provider(data)

    def _complete(self, name: str) -> None:
        self._send_keys(CTRL_U + name.encode())  # LR-041, LR-042
        self.line.reset(name)

    def _run(self, name: str, now: float) -> None:
        command = self.commands.named(name)
        self._send_keys(CTRL_U)
        self.line.reset()
        if command is None:
            return
        overlay = command.start(self)
        if overlay is not None:
            self._arm(overlay, QuietWait(now))

    # -- opening --------------------------------------------------------------------------
    def _arm(self, overlay: Overlay, wait: QuietWait) -> None:
        self.phase, self.overlay, self.wait = Phase.ARMED, overlay, wait

    def _disarm(self) -> None:
        if self.phase is Phase.ARMED and isinstance(self.overlay, Menu):
            self.phase, self.overlay, self.wait = Phase.IDLE, None, None

    def _prepare(self, now: float) -> None:
        overlay = self.overlay
        assert overlay is not None
        self.phase = Phase.PREPARING
        if self.screen.alternate:
            probe = ShrinkArea.place(self.rows, 1, fill=True)
            most = probe.rows if probe is not None else 0
            area = ShrinkArea.place(
                self.rows, overlay.rows(Space(most, self.columns)), overlay.fill
            )
            if area is None:
                self._abandon(now)
                return
            self.area = area
            self._apply_provider_size()
            self.wait = QuietWait(now, REPAINT_QUIET, REPAINT_CAP)
        else:
            self.wait = None
            self.cursor_deadline = now + CURSOR_REPORT_TIMEOUT
            self.ports.to_terminal(ansi.QUERY_CURSOR.encode())

    def _cursor_reported(self, token: Token, now: float) -> None:
        position = token.cursor_position()
        overlay = self.overlay
        self.cursor_deadline = None
        if position is None or overlay is None:
            return
        most = self.rows - 1 - MARGIN
        wanted = overlay.rows(Space(max(most, 0), self.columns))
        area = InlineArea.place(position, self.rows, wanted, overlay.fill)
        if area is None:
            self._abandon(now)
            return
        self.area = area
        self.ports.to_terminal(area.open().encode())
        self._opened(now)

    def _show(self, now: float) -> None:
        assert self.area is not None
        self.ports.to_terminal(self.area.open().encode())
        self._opened(now)

    def _opened(self, now: float) -> None:
        self.phase, self.wait = Phase.OPEN, None
        self._draw()
        queued, self.queued = self.queued, []
        for token in queued:
            self._token(token, now)

    def _abandon(self, now: float) -> None:
        """The area cannot be shown: back to plain forwarding, keys typed meanwhile too."""
        self.area, self.overlay, self.wait, self.cursor_deadline = None, None, None, None
        self.phase = Phase.IDLE
        self._apply_provider_size()
        self._flush_held()
        queued, self.queued = self.queued, []
        for token in queued:
            self._ordinary(token, now)

    # -- open -----------------------------------------------------------------------------
    def _draw(self) -> None:
        if self.area is None or self.overlay is None:
            return
        lines = self.overlay.render(self.columns - 1, self.area.rows)
        self.ports.to_terminal(self.area.draw(lines).encode())

    def _overlay_key(self, token: Token, now: float) -> None:
        assert self.overlay is not None
        self._act(self.overlay.handle(token), token, now)

    def _act(self, action: Action, token: Token, now: float) -> None:
        if isinstance(action, Stay):
            self._draw()
        elif isinstance(action, Busy):
            self._draw()
            self._act(action.work(), token, now)
        elif isinstance(action, Close):
            self._finish()
            if action.after is not None:
                action.after(self)
        elif isinstance(action, PassThrough):
            self._finish()
            self._ordinary(token, now)
        elif isinstance(action, Complete):
            self._finish()
            self._complete(action.text)
        elif isinstance(action, Run):
            self._finish()
            self._run(action.name, now)

    def _finish(self) -> None:
        self._close_area()
        self.overlay = None

    def _close_area(self) -> None:
        """Delete only what was inserted, restore the cursor, then let the provider go on."""
        area, self.area = self.area, None
        if area is not None:
            self.ports.to_terminal(area.close().encode())
        self.phase, self.wait, self.cursor_deadline = Phase.IDLE, None, None
        self._flush_held()
        self._apply_provider_size()

    def _holding(self) -> bool:
        return self.phase is Phase.OPEN or self.cursor_deadline is not None

    def _flush_held(self) -> None:
        if self.held:
            self.ports.to_terminal(bytes(self.held))
            self.held.clear()

    def _apply_provider_size(self) -> None:
        rows = self.rows
        if isinstance(self.area, ShrinkArea):
            rows = self.area.provider_rows
        elif self.notice is not None and not self.notice.released:
            rows -= NOTICE_ROWS
        size = (max(rows, 1), self.columns)
        if size != self.provider_size:
            self.provider_size = size
            self.ports.resize_provider(*size)
            self.settling = QuietWait(self.clock.now(), REPAINT_QUIET, REPAINT_CAP)

    # -- the notice -----------------------------------------------------------------------
    def _notice_step(self, now: float) -> None:
        notice = self.notice
        if notice is None or self._holding():
            return
        step = notice.step(now)
        if step is NoticeStep.DRAW:
            self.ports.to_terminal(notice.draw(self.rows, self.columns).encode())
        elif step is NoticeStep.RELEASE:
            self._release_notice()

    def _release_notice(self) -> None:
        notice, self.notice = self.notice, None
        if notice is None:
            return
        notice.released = True
        if not self.notice_alternate:
            self.ports.to_terminal(release_main_screen().encode())
        self._apply_provider_size()
