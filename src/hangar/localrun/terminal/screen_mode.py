"""Which screen the provider draws on, learned from its output.

Full-screen TUIs (Claude Code 2.1.332, Codex 0.171.0) switch to the alternate screen with
``ESC[?1049h`` (or the older 1047 / 47 modes) and back with ``…l``. The tracker reads every
output chunk, including a sequence split across chunks, and keeps the last switch.
"""

from __future__ import annotations

import re

_SWITCH = re.compile(rb"\x1b\[\?([0-9;]+)([hl])")
_ALTERNATE_MODES = {b"1049", b"1047", b"47"}
_CARRY = 32


class ScreenModeTracker:
    def __init__(self) -> None:
        self.alternate = False
        self._tail = b""

    def feed(self, data: bytes) -> None:
        window = self._tail + data
        for match in _SWITCH.finditer(window):
            if _ALTERNATE_MODES & set(match.group(1).split(b";")):
                self.alternate = match.group(2) == b"h"
        cut = window.rfind(b"\x1b")
        self._tail = window[cut:][:_CARRY] if cut >= 0 and len(window) - cut < _CARRY else b""


_QUERY = re.compile(
    rb"\x1b\[[?>=]?[0-9;]*[cn]"  # device attributes, device status, cursor position
    rb"|\x1b\[\??[0-9;]*\$p"  # mode requests (DECRQM)
    rb"|\x1b\[\?u"  # keyboard-protocol flags
    rb"|\x1b\[(?:14|16|18|19)t"  # window and cell size
    rb"|\x1b\[>[0-9]*q"  # terminal version
    rb"|\x1b\][0-9]+;\?(?:\x07|\x1b\\)"  # colour queries (OSC 10/11/…)
    rb"|\x1bP\+q[0-9A-Fa-f;]*(?:\x07|\x1b\\)"  # termcap queries (XTGETTCAP)
)


def split_queries(data: bytes) -> tuple[bytes, bytes]:
    """``(queries, rest)``: the terminal queries in ``data`` and everything else, in order.

    While the area is shown the provider's output is held, but its questions to the terminal
    must not wait: a TUI blocks (and may drop keys) until the answer comes. Queries draw
    nothing, and the terminal's cursor is the provider's between two draws, so they can go
    out at once."""
    queries = b"".join(match.group() for match in _QUERY.finditer(data))
    return queries, _QUERY.sub(b"", data) if queries else data
