"""``runtime.terminal.*``: a device PTY in a task's own directory (RW-248..258).

The executor owns the PTY; the hub only relays. A terminal is opened for a **workspace tool
context**: a LocalTask's own ``workspacePath`` (``localTaskId`` given: the directory the task
ran in, so a worktree is never taken for its project, RW-249), or a project root this device
knows (no task selected, RW-257). It never falls back to another directory (RW-258).

Output is not an answer: the executor streams it as events through its event sink, one
:class:`TerminalOutput` per chunk (``runtime.terminal.output``) and a :class:`TerminalExit`
(``runtime.terminal.exit``) when the shell ends. ``offset`` counts the bytes the PTY produced
before the chunk, so a relay that lost an event (a full queue drops the oldest) asks
``runtime.terminal.replay`` for what it missed; the executor keeps the newest bytes of each
terminal for that, and for a page that reattaches (``terminalId`` in ``open``).
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from hangar.protocol.codec import Wire
from hangar.protocol.tasks import Id
from hangar.protocol.worktrees import PathText

TERMINAL_OUTPUT = "runtime.terminal.output"
TERMINAL_EXIT = "runtime.terminal.exit"
TERMINAL_EVENTS = frozenset({TERMINAL_OUTPUT, TERMINAL_EXIT})

TerminalId = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
Cols = Annotated[int, msgspec.Meta(ge=2, le=1000)]
Rows = Annotated[int, msgspec.Meta(ge=1, le=500)]
Offset = Annotated[int, msgspec.Meta(ge=0)]
MAX_INPUT_CHARS = 65_536
"""One ``input`` carries at most this much (a larger paste is sent in parts)."""


# -- requests -------------------------------------------------------------------------------
class OpenTerminal(Wire):
    workspace_path: PathText
    """The task's own directory, or a project root of this device."""
    local_task_id: Id | None = None
    """The task whose directory ``workspacePath`` must be; without it, a known project root."""
    terminal_id: TerminalId | None = None
    """Reattach to this terminal when it is still open for the same context."""
    cols: Cols = 80
    rows: Rows = 24


class TerminalRef(Wire):
    terminal_id: TerminalId


class TerminalInput(TerminalRef):
    data: Annotated[str, msgspec.Meta(max_length=MAX_INPUT_CHARS)]
    """What the user typed or pasted, as the terminal sends it (UTF-8 text)."""


class TerminalResize(TerminalRef):
    cols: Cols
    rows: Rows


FLOW_HOLD_SECONDS = 30.0
"""A hold of :class:`TerminalFlow` lasts this long unless it is renewed."""


FLOW_WINDOW = 512 * 1024
"""A watcher that reported ``consumed`` gets at most this many bytes beyond it."""


class TerminalFlow(TerminalRef):
    """Hold a terminal's output while ``holder`` (one page socket) cannot take more: the
    device stops reading the PTY, so the shell's writes wait, as at a real terminal nobody
    reads. Output resumes when every holder released (or its hold expired).

    ``consumed``: the holder has taken the output up to this offset; the device then produces
    at most :data:`FLOW_WINDOW` bytes beyond it until the next report (a window, renewed like
    a hold), so what is on the way to a watcher stays bounded however long the way is (a
    remote device). ``paused: false`` without ``consumed`` releases the holder entirely."""

    holder: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    paused: bool
    consumed: Offset | None = None


class TerminalReplay(TerminalRef):
    offset: Offset = 0
    """Send the bytes from this offset on (as far back as the executor still has them)."""


# -- answers and events -----------------------------------------------------------------------
class TerminalInfo(Wire, omit_defaults=False):
    terminal_id: str
    workspace_path: str
    local_task_id: str | None
    project_path: str | None
    """The project the directory belongs to (a worktree's repository), when it has one."""
    cwd: str
    shell: str
    cols: int
    rows: int
    running: bool
    exit_code: int | None
    offset: int
    """Bytes produced so far (the offset the next output chunk starts at)."""
    created_at: str
    reattached: bool = False


class TerminalList(Wire):
    terminals: list[TerminalInfo]


class TerminalOutput(Wire):
    """One chunk of output (the ``runtime.terminal.output`` event, and a replay's answer)."""

    terminal_id: str
    offset: int
    data: bytes
    """Raw PTY bytes (base64 in JSON): a chunk may end inside a UTF-8 character."""
    truncated: bool = False
    """Replay only: bytes before ``offset`` were asked for but are no longer kept."""


class TerminalExit(Wire):
    """The ``runtime.terminal.exit`` event: the shell ended."""

    terminal_id: str
    exit_code: int
    offset: int


class TerminalClosed(Wire):
    terminal_id: str
    closed: bool


class Accepted(Wire):
    """An input or resize was handed to the PTY."""

    terminal_id: str
