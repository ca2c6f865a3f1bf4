"""The few escape sequences the engine writes, and text measured in terminal cells.

Colours: the current menu item and links are bright blue (SGR 94) reset with SGR 39 (LR-035,
LR-103); bold is SGR 1 reset with 22. Nothing here uses reverse video or a background colour
(LR-036). Widths follow Unicode East Asian Width (wide and fullwidth characters take two
cells, combining marks none), so CJK titles such as ``【…】`` line up.
"""

from __future__ import annotations

import re
import unicodedata

BLUE = "\x1b[94m"
FG_RESET = "\x1b[39m"
BOLD = "\x1b[1m"
BOLD_RESET = "\x1b[22m"
DIM = "\x1b[2m"
SAVE_CURSOR = "\x1b7"
RESTORE_CURSOR = "\x1b8"
ERASE_LINE = "\x1b[2K"
QUERY_CURSOR = "\x1b[6n"
_SGR = re.compile(r"\x1b\[[0-9;]*m")
_ESCAPE = re.compile(
    rb"\x1b(?:\[([0-?]*[ -/]*)([@-~])"  # CSI: parameters, final byte
    rb"|\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC (a title, a shell mark)
    rb"|[P_^X][^\x1b]*(?:\x1b\\)?"  # DCS, APC, PM, SOS
    rb"|[ -/]*[0-~])"  # two- and three-byte escapes (save cursor, charsets)
)
_ERASING = frozenset(b"@JKLMPX")
"""CSI finals that change what is on the screen without writing a character: insert or
delete characters or lines, erase in line or display."""
_CONTROLS = bytes(range(0x20)) + b"\x7f"


def draws_something(data: bytes) -> bool:
    """Whether terminal output changes what a user sees: it writes a character or erases
    one. Cursor moves, colours, modes and titles alone do not (a TUI's cursor-only frame
    between a key and its echo is not the echo)."""
    erased = False

    def drop(match: re.Match[bytes]) -> bytes:
        nonlocal erased
        if match.group(2) is not None and match.group(2)[0] in _ERASING:
            erased = True
        return b""

    text = _ESCAPE.sub(drop, data)
    return erased or bool(text.translate(None, _CONTROLS))


def move_to(row: int, column: int = 1) -> str:
    return f"\x1b[{row};{column}H"


def insert_lines(count: int) -> str:
    return f"\x1b[{count}L"


def delete_lines(count: int) -> str:
    return f"\x1b[{count}M"


def scroll_region(top: int, bottom: int) -> str:
    return f"\x1b[{top};{bottom}r"


RESET_SCROLL_REGION = "\x1b[r"


def blue(text: str) -> str:
    return f"{BLUE}{text}{FG_RESET}"


def bold(text: str) -> str:
    return f"{BOLD}{text}{BOLD_RESET}"


def char_width(char: str) -> int:
    if unicodedata.combining(char) or char in "\u200b\u200d":
        return 0
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return 2
    return 0 if ord(char) < 0x20 else 1


def plain(text: str) -> str:
    """``text`` without SGR sequences."""
    return _SGR.sub("", text)


def width(text: str) -> int:
    """Cells ``text`` takes (SGR sequences take none)."""
    return sum(char_width(c) for c in plain(text))


def fit(text: str, cells: int) -> str:
    """``text`` cut to at most ``cells`` cells (SGR sequences kept, a cut ends with ``…``)."""
    if width(text) <= cells:
        return text
    out: list[str] = []
    used = 0
    position = 0
    limit = max(cells - 1, 0)
    while position < len(text):
        match = _SGR.match(text, position)
        if match:
            out.append(match.group())
            position = match.end()
            continue
        cell = char_width(text[position])
        if used + cell > limit:
            break
        out.append(text[position])
        used += cell
        position += 1
    return "".join(out) + ("…" if cells else "")


def wrap(text: str, cells: int) -> list[str]:
    """Plain ``text`` wrapped at word boundaries into lines of at most ``cells`` cells;
    a word longer than a line is split. Nothing is dropped."""
    cells = max(cells, 1)
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        candidate = f"{current} {word}" if current else word
        if width(candidate) <= cells:
            current = candidate
            continue
        if current:
            lines.append(current)
        current = ""
        while width(word) > cells:
            head, word = _split_at(word, cells)
            lines.append(head)
        current = word
    lines.append(current)
    return lines


def _split_at(word: str, cells: int) -> tuple[str, str]:
    used = 0
    for index, char in enumerate(word):
        used += char_width(char)
        if used > cells:
            return word[:index] or word[:1], word[index:] if index else word[1:]
    return word, ""
