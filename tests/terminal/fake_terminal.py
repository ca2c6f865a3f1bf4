"""A headless fake terminal for the terminal engine: a VT emulator, a scripted provider, a clock.

:class:`Driver` wires the real :class:`~hangar.localrun.terminal.interposer.Interposer` between

- the *user's terminal*: a ``pyte`` screen with scroll-back (it answers cursor-position queries
  as a terminal does, the answer arriving as input a moment later), and
- a *provider*: :class:`LineEditorProvider`, a scripted stand-in for an agent CLI that echoes
  what it receives, on the main screen (like a shell prompt) or on the alternate screen
  (repainting everything, with its input box near the bottom, like Codex and Claude Code).

Time is a :class:`~hangar.localrun.terminal.clock.ManualClock`: :meth:`Driver.settle` runs the
scheduled provider output, terminal answers and the engine's own deadlines in time order, so
the timing rules are checked exactly, without sleeping.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import pyte

from hangar.localrun.terminal.clock import ManualClock
from hangar.localrun.terminal.commands import Command, CommandRegistry
from hangar.localrun.terminal.interposer import Interposer
from hangar.localrun.terminal.overlay import Host, Overlay

PROMPT = "> "


class _Screen(pyte.HistoryScreen):  # type: ignore[misc]
    """pyte 0.8.2 leaves a line's old text behind when IL/DL move a never-written (sparse)
    line onto it; a terminal blanks it. These two follow the VT spec."""

    def insert_lines(self, count: int | None = None) -> None:
        count = count or 1
        top, bottom = self.margins or pyte.screens.Margins(0, self.lines - 1)
        if top <= self.cursor.y <= bottom:
            self.dirty.update(range(self.cursor.y, self.lines))
            for y in range(bottom, self.cursor.y - 1, -1):
                moved = self.buffer.pop(y, None)
                if y + count <= bottom:
                    if moved is not None:
                        self.buffer[y + count] = moved
                    else:
                        self.buffer.pop(y + count, None)
            self.carriage_return()

    def delete_lines(self, count: int | None = None) -> None:
        count = count or 1
        top, bottom = self.margins or pyte.screens.Margins(0, self.lines - 1)
        if top <= self.cursor.y <= bottom:
            self.dirty.update(range(self.cursor.y, self.lines))
            for y in range(self.cursor.y, bottom + 1):
                source = self.buffer.pop(y + count, None) if y + count <= bottom else None
                if source is not None:
                    self.buffer[y] = source
                else:
                    self.buffer.pop(y, None)
            self.carriage_return()


class UserTerminal:
    """The user's terminal: a pyte screen that keeps what scrolls off the top."""

    def __init__(self, rows: int, columns: int) -> None:
        self.screen = _Screen(columns, rows, history=2000)
        self.stream = pyte.ByteStream(self.screen)
        self.replies: list[bytes] = []
        self.screen.write_process_input = lambda data: self.replies.append(data.encode())
        self.written = bytearray()

    def feed(self, data: bytes) -> None:
        self.written += data
        self.stream.feed(data)

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display]

    def scrollback(self) -> list[str]:
        top = self.screen.history.top
        return ["".join(line[x].data for x in sorted(line)).rstrip() for line in top]

    @property
    def cursor(self) -> tuple[int, int]:
        """1-based ``(row, column)``."""
        return self.screen.cursor.y + 1, self.screen.cursor.x + 1

    def row_chars(self, row: int) -> list[pyte.screens.Char]:
        line = self.screen.buffer[row - 1]
        return [line[x] for x in range(self.screen.columns)]

    def resize(self, rows: int, columns: int) -> None:
        self.screen.resize(rows, columns)


@dataclass
class LineEditorProvider:
    """A scripted stand-in for an agent CLI's input line.

    Main screen (``alternate=False``): a prompt ``> `` and an echo of each character,
    Backspace as ``\\b \\b``, Ctrl+U redraws the empty prompt, Enter prints ``you said: …``.
    Alternate screen: a full repaint after every change: output history at the top, then the
    input box, then two hint rows at the bottom (the input box sits three rows from the
    bottom, as Codex draws it). Escape sequences it receives are recorded, not echoed.
    """

    rows: int
    columns: int
    alternate: bool = False
    line: str = ""
    history: list[str] = field(default_factory=list)
    received: bytearray = field(default_factory=bytearray)
    repaints: int = 0

    def start(self) -> bytes:
        if self.alternate:
            return b"\x1b[?1049h" + self.repaint()
        return PROMPT.encode()

    def receive(self, data: bytes) -> bytes:
        self.received += data
        out = bytearray()
        position = 0
        while position < len(data):
            byte = data[position]
            if byte == 0x1B:  # skip a whole escape sequence
                end = position + 2
                while end < len(data) and not 0x40 <= data[end] <= 0x7E:
                    end += 1
                if data[position + 1 : position + 2] in (b"]", b"P", b"_", b"^", b"X"):
                    end = _string_end(data, position)
                position = end + 1
                continue
            out += self._key(byte)
            position += 1
        if self.alternate and out:
            return self.repaint()
        return bytes(out)

    def _key(self, byte: int) -> bytes:
        if byte in (0x7F, 0x08):
            if not self.line:
                return b""
            self.line = self.line[:-1]
            return b"\b \b"
        if byte == 0x15:
            self.line = ""
            return f"\r\x1b[2K{PROMPT}".encode()
        if byte == 0x0D:
            said, self.line = self.line, ""
            self.history.append(f"you said: {said}")
            return f"\r\nyou said: {said}\r\n{PROMPT}".encode()
        if byte >= 0x20:
            self.line += chr(byte)
            return bytes([byte])
        return b""

    def resize(self, rows: int, columns: int) -> bytes:
        self.rows, self.columns = rows, columns
        return self.repaint() if self.alternate else b""

    def repaint(self) -> bytes:
        self.repaints += 1
        body = self.rows - 3
        shown = self.history[-body:] if body > 0 else []
        rows = [*shown, *[""] * (body - len(shown)), f"› {self.line}", "", "? for shortcuts"]
        screen = "\x1b[H\x1b[2J" + "\r\n".join(r[: self.columns] for r in rows[: self.rows])
        cursor = f"\x1b[{self.rows - 2};{3 + len(self.line)}H"
        return (screen + cursor).encode()


def _string_end(data: bytes, start: int) -> int:
    for index in range(start + 2, len(data)):
        if data[index] == 0x07:
            return index
        if data[index] == 0x1B and data[index + 1 : index + 2] == b"\\":
            return index + 1
    return len(data) - 1


class Driver:
    """The engine between a :class:`UserTerminal` and a :class:`LineEditorProvider`."""

    def __init__(
        self,
        rows: int = 24,
        columns: int = 80,
        *,
        alternate: bool = False,
        commands: CommandRegistry | None = None,
        menu: bool = True,
        echo_delay: float = 0.002,
        answer_delay: float = 0.001,
        answers_cursor: bool = True,
    ) -> None:
        self.clock = ManualClock()
        self.terminal = UserTerminal(rows, columns)
        self.provider = LineEditorProvider(rows, columns, alternate)
        self.echo_delay = echo_delay
        self.answer_delay = answer_delay
        self.answers_cursor = answers_cursor
        self.started: list[str] = []
        self.commands = commands if commands is not None else sample_commands(self.started)
        self.provider_sizes: list[tuple[int, int]] = []
        self.ended = False
        self.draw_times: list[tuple[float, bytes]] = []
        self._events: list[tuple[float, int, str, bytes]] = []
        self._order = itertools.count()
        self.engine = Interposer(self, self.commands, self.clock, (rows, columns), menu=menu)
        self.engine.provider_output(self.provider.start())

    # -- TerminalPorts --------------------------------------------------------------------
    def to_terminal(self, data: bytes) -> None:
        self.draw_times.append((self.clock.now(), data))
        self.terminal.feed(data)
        if self.terminal.replies:
            replies, self.terminal.replies = self.terminal.replies, []
            if self.answers_cursor:
                for reply in replies:
                    self._schedule(self.answer_delay, "user", reply)

    def to_provider(self, data: bytes) -> None:
        out = self.provider.receive(data)
        if out:
            self._schedule(self.echo_delay, "provider", out)

    def resize_provider(self, rows: int, columns: int) -> None:
        self.provider_sizes.append((rows, columns))
        out = self.provider.resize(rows, columns)
        if out:
            self._schedule(self.echo_delay, "provider", out)

    def end_provider(self) -> None:
        self.ended = True

    # -- driving --------------------------------------------------------------------------
    def _schedule(self, delay: float, target: str, data: bytes) -> None:
        due = self.clock.now() + delay
        heapq.heappush(self._events, (due, next(self._order), target, data))

    def type(self, *chunks: bytes | str) -> None:
        """Each chunk arrives as one read, with the engine settling in between."""
        for chunk in chunks:
            self.engine.user_input(chunk.encode() if isinstance(chunk, str) else chunk)
            self.settle()

    def keys(self, *chunks: bytes | str) -> None:
        """All chunks arrive before anything settles (a fast burst of reads)."""
        for chunk in chunks:
            self.engine.user_input(chunk.encode() if isinstance(chunk, str) else chunk)

    def provider_writes(self, data: bytes | str, delay: float = 0.0) -> None:
        self._schedule(delay, "provider", data.encode() if isinstance(data, str) else data)

    def resize(self, rows: int, columns: int) -> None:
        self.terminal.resize(rows, columns)
        self.engine.resized(rows, columns)
        self.settle()

    def settle(self, limit: float = 5.0) -> None:
        """Run events and deadlines in time order until nothing is due within ``limit``."""
        end = self.clock.now() + limit
        for _ in range(100_000):
            times = [t for t in (self._events[0][0] if self._events else None,
                                 self.engine.next_deadline()) if t is not None]  # fmt: skip
            if not times or min(times) > end:
                return
            self.clock.set(max(min(times), self.clock.now()))
            self.step()
        raise AssertionError("the engine never settled")

    def run_for(self, seconds: float) -> None:
        """Advance the clock by ``seconds``, running everything due on the way."""
        end = self.clock.now() + seconds
        self.settle(limit=seconds)
        self.clock.set(max(end, self.clock.now()))
        self.step()

    def step(self) -> None:
        now = self.clock.now()
        while self._events and self._events[0][0] <= now:
            _, _, target, data = heapq.heappop(self._events)
            if target == "provider":
                self.engine.provider_output(data)
            else:
                self.engine.user_input(data)
        self.engine.tick()

    # -- looking ----------------------------------------------------------------------------
    def lines(self) -> list[str]:
        return self.terminal.lines()

    def text(self) -> str:
        return "\n".join(self.lines())

    def menu_shown(self) -> bool:
        return any("/hangarcreateissue" in line and "Issue" in line for line in self.lines())

    def first_draw_time(self, marker: bytes) -> float | None:
        return next((t for t, data in self.draw_times if marker in data), None)


@dataclass
class StartedCommand:
    name: str
    overlay: Callable[[Host], Overlay | None] | None = None


def sample_commands(started: list[str], extra: tuple[Command, ...] = ()) -> CommandRegistry:
    """``/hangarcreateissue`` and ``/hangarhelp``, each recording that it ran in ``started``."""

    def runner(name: str) -> Callable[[Host], Overlay | None]:
        def start(_host: Host) -> Overlay | None:
            started.append(name)
            return None

        return start

    return CommandRegistry(
        (
            Command("/hangarcreateissue", "Issue from the plan", runner("/hangarcreateissue")),
            Command("/hangarhelp", "What hangar can do here", runner("/hangarhelp")),
            *extra,
        )
    )
