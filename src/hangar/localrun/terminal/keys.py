"""Recognise what the user's terminal sends: keys, text, pastes, control strings and replies.

:class:`InputScanner` turns raw input bytes into :class:`Token` s, whole sequences only,
whatever the chunking: a sequence split across reads is held until it is complete (a paste's
``ESC[201~`` end frame is therefore always forwarded in one piece, LR-018). Every token keeps
its exact bytes, so forwarding a token forwards the input unchanged (LR-021).

Classes of input:

- text (UTF-8, one character per token) and keys (Enter, Tab, arrows, Ctrl+…), including keys
  in the CSI-u encoding (``ESC[<code>;<mods>u``, kitty / fixterms) decoded to the same tokens;
- ``ESC[200~`` / ``ESC[201~`` bracketed-paste frames;
- OSC, DCS, SOS, PM and APC control strings ended by BEL or ST (``ESC \\``) (LR-019);
- CSI terminal replies: cursor position (``…R``), device attributes (``ESC[?…c``,
  ``ESC[>…c``), device status (``…n``), mode reports (``…$y``), window reports (``…t``),
  keyboard-flag reports (``ESC[?…u``) (LR-020);
- focus in/out (``ESC[I``, ``ESC[O``), SGR mouse (``ESC[<b;x;yM|m``), X10 mouse
  (``ESC[M`` + three bytes);
- anything else is ``OTHER``: forwarded, otherwise ignored.

A lone ``ESC`` is ambiguous (the Esc key, or the start of a sequence still in flight): the
scanner holds it and :meth:`InputScanner.flush` turns it into the Esc key once the caller's
clock says no continuation came (:data:`ESC_TIMEOUT`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

ESC = 0x1B
ESC_TIMEOUT = 0.05
"""Seconds after which a held lone ESC is the Esc key."""
INCOMPLETE_TIMEOUT = 0.5
"""Seconds after which a sequence that never completed is passed on as it is."""
MAX_CONTROL_STRING = 1 << 20
"""A control string longer than this is passed on unparsed (it cannot be held forever)."""


class Kind(enum.Enum):
    TEXT = "text"
    KEY = "key"
    PASTE_START = "paste_start"
    PASTE_END = "paste_end"
    CONTROL_STRING = "control_string"
    REPLY = "reply"
    FOCUS = "focus"
    MOUSE = "mouse"
    OTHER = "other"


@dataclass(frozen=True)
class Token:
    """One unit of input. ``name`` is the character (``TEXT``), the key name (``KEY``: e.g.
    ``enter``, ``tab``, ``backtab``, ``up``, ``ctrl-u``), the reply type (``REPLY``: ``cpr``,
    ``da``, ``dsr``, ``mode``, ``window``, ``keyboard``) or the control-string type."""

    kind: Kind
    raw: bytes
    name: str = ""

    def is_key(self, *names: str) -> bool:
        return self.kind is Kind.KEY and self.name in names

    def cursor_position(self) -> tuple[int, int] | None:
        """``(row, column)``, 1-based, of a cursor position report; else None."""
        if self.kind is not Kind.REPLY or self.name != "cpr":
            return None
        params = self.raw[2:-1].lstrip(b"?").split(b";")
        try:
            return int(params[0]), int(params[1])
        except (IndexError, ValueError):
            return None


_CONTROL_CHARS = {
    0x0D: "enter",
    0x0A: "enter",
    0x09: "tab",
    0x7F: "backspace",
    0x08: "backspace",
    0x03: "ctrl-c",
    0x04: "ctrl-d",
    0x15: "ctrl-u",
    0x00: "ctrl-space",
}
_STRING_INTRODUCERS = {ord("]"): "osc", ord("P"): "dcs", ord("X"): "sos", ord("^"): "pm"}
_STRING_INTRODUCERS[ord("_")] = "apc"
_CSI_KEYS = {
    b"A": "up",
    b"B": "down",
    b"C": "right",
    b"D": "left",
    b"H": "home",
    b"F": "end",
    b"Z": "backtab",
}
_TILDE_KEYS = {b"1": "home", b"2": "insert", b"3": "delete", b"4": "end", b"5": "pageup"}
_TILDE_KEYS |= {b"6": "pagedown", b"7": "home", b"8": "end"}
_CSI_U_KEYS = {13: "enter", 9: "tab", 127: "backspace", 8: "backspace", 27: "escape"}
_CSI_U_KEYS |= {57414: "enter"}  # kitty's keypad Enter


def _utf8_length(lead: int) -> int:
    if lead < 0x80:
        return 1
    if lead >> 5 == 0b110:
        return 2
    if lead >> 4 == 0b1110:
        return 3
    if lead >> 3 == 0b11110:
        return 4
    return 1  # a stray continuation byte: one replacement character


class InputScanner:
    """Stateful recogniser; feed it bytes as they arrive, in any chunks."""

    def __init__(self) -> None:
        self._held = b""
        self._held_since = 0.0

    @property
    def holding(self) -> bool:
        """True while an incomplete sequence (or a lone ESC) waits for more bytes."""
        return bool(self._held)

    def deadline(self) -> float | None:
        """When :meth:`flush` should run if nothing more arrives; None when nothing is held."""
        if not self._held:
            return None
        wait = ESC_TIMEOUT if self._held == b"\x1b" else INCOMPLETE_TIMEOUT
        return self._held_since + wait

    def feed(self, data: bytes, now: float) -> list[Token]:
        """Tokens completed by ``data``; an incomplete tail is held for the next call."""
        buffer = self._held + data
        tokens: list[Token] = []
        position = 0
        while position < len(buffer):
            end, token = _scan(buffer, position)
            if token is None:
                break
            tokens.append(token)
            position = end
        rest = buffer[position:]
        if rest and rest != self._held:
            self._held_since = now
        self._held = rest
        return tokens

    def flush(self, now: float) -> list[Token]:
        """Give up waiting (call at :meth:`deadline`): a lone ESC is the Esc key, anything
        else incomplete is ``OTHER``."""
        deadline = self.deadline()
        if deadline is None or now < deadline:
            return []
        held, self._held = self._held, b""
        if held == b"\x1b":
            return [Token(Kind.KEY, held, "escape")]
        return [Token(Kind.OTHER, held)]


def _scan(buffer: bytes, start: int) -> tuple[int, Token | None]:
    """One token from ``buffer[start:]``: ``(end, token)``, or ``(start, None)`` if the bytes
    there are an incomplete sequence."""
    lead = buffer[start]
    if lead != ESC:
        return _scan_plain(buffer, start)
    if start + 1 >= len(buffer):
        return start, None
    second = buffer[start + 1]
    if second == ord("["):
        return _scan_csi(buffer, start)
    if second in _STRING_INTRODUCERS:
        return _scan_string(buffer, start, _STRING_INTRODUCERS[second])
    if second == ord("O"):  # SS3: arrows and F1-F4 in application mode
        if start + 2 >= len(buffer):
            return start, None
        raw = buffer[start : start + 3]
        name = _CSI_KEYS.get(raw[2:3], "ss3")
        return start + 3, Token(Kind.KEY, raw, name)
    if second == ESC:
        return start + 1, Token(Kind.KEY, b"\x1b", "escape")
    length = _utf8_length(second)
    if start + 1 + length > len(buffer):
        return start, None
    raw = buffer[start : start + 1 + length]
    char = raw[1:].decode("utf-8", "replace")
    return start + 1 + length, Token(Kind.KEY, raw, f"alt-{char}")


def _scan_plain(buffer: bytes, start: int) -> tuple[int, Token | None]:
    lead = buffer[start]
    if lead in _CONTROL_CHARS:
        return start + 1, Token(Kind.KEY, buffer[start : start + 1], _CONTROL_CHARS[lead])
    if lead < 0x20:
        name = f"ctrl-{chr(lead + 0x60)}"
        return start + 1, Token(Kind.KEY, buffer[start : start + 1], name)
    length = _utf8_length(lead)
    if start + length > len(buffer):
        return start, None
    raw = buffer[start : start + length]
    return start + length, Token(Kind.TEXT, raw, raw.decode("utf-8", "replace"))


def _scan_csi(buffer: bytes, start: int) -> tuple[int, Token | None]:
    position = start + 2
    while position < len(buffer) and 0x20 <= buffer[position] <= 0x3F:
        position += 1
    if position >= len(buffer):
        return start, None
    final = buffer[position]
    if not 0x40 <= final <= 0x7E:  # not a CSI after all: pass the bytes on
        return position, Token(Kind.OTHER, buffer[start:position])
    raw = buffer[start : position + 1]
    if raw == b"\x1b[M":  # X10 mouse: three more bytes follow
        if position + 3 >= len(buffer):
            return start, None
        return position + 4, Token(Kind.MOUSE, buffer[start : position + 4], "x10")
    return position + 1, _classify_csi(raw)


def _classify_csi(raw: bytes) -> Token:
    body, final = raw[2:-1], raw[-1:]
    private = body[:1] if body[:1] in (b"?", b">", b"<", b"=") else b""
    params = body[len(private) :]
    if private == b"<" and final in (b"M", b"m"):
        return Token(Kind.MOUSE, raw, "sgr")
    if body == b"" and final in (b"I", b"O"):
        return Token(Kind.FOCUS, raw, "in" if final == b"I" else "out")
    if final == b"~" and params in (b"200", b"201"):
        kind = Kind.PASTE_START if params == b"200" else Kind.PASTE_END
        return Token(kind, raw, "paste")
    reply = _reply_name(private, params, final)
    if reply is not None:
        return Token(Kind.REPLY, raw, reply)
    if final == b"u" and not private:
        return _csi_u(raw, params)
    if final == b"~" and params.split(b";")[0] in _TILDE_KEYS:
        return Token(Kind.KEY, raw, _TILDE_KEYS[params.split(b";")[0]])
    if final in _CSI_KEYS and not private:
        name = _CSI_KEYS[final]
        return Token(Kind.KEY, raw, _with_modifiers(name, params))
    return Token(Kind.OTHER, raw)


def _reply_name(private: bytes, params: bytes, final: bytes) -> str | None:
    if final == b"R" and (private in (b"", b"?")) and b";" in params:
        return "cpr"
    if final == b"c" and private in (b"?", b">", b"="):
        return "da"
    if final == b"n" and not private:
        return "dsr"
    if final == b"y" and params.endswith(b"$"):
        return "mode"
    if final == b"t" and not private and params[:1] in (b"4", b"6", b"8", b"9"):
        return "window"
    if final == b"u" and private == b"?":
        return "keyboard"
    return None


def _with_modifiers(name: str, params: bytes) -> str:
    """``ESC[1;5A`` is Ctrl+Up: keep the plain name for unmodified keys."""
    parts = params.split(b";")
    if len(parts) < 2 or parts[1] in (b"", b"1"):
        return name
    return f"{name}+{parts[1].decode('ascii', 'replace')}"


def _csi_u(raw: bytes, params: bytes) -> Token:
    """``ESC[code[:alternates];mods[:event];text u``: the same tokens as the plain bytes."""
    fields = params.split(b";")
    try:
        code = int(fields[0].split(b":")[0] or b"0")
        modifier_field = fields[1].split(b":") if len(fields) > 1 else [b"1"]
        modifiers = int(modifier_field[0] or b"1") - 1
        event = int(modifier_field[1]) if len(modifier_field) > 1 and modifier_field[1] else 1
    except ValueError:
        return Token(Kind.OTHER, raw)
    if event == 3:  # a key release: no input
        return Token(Kind.OTHER, raw, "release")
    shift, alt, ctrl = bool(modifiers & 1), bool(modifiers & 2), bool(modifiers & 4)
    if code in _CSI_U_KEYS:
        name = _CSI_U_KEYS[code]
        if name == "tab" and shift:
            name = "backtab"
        return Token(Kind.KEY, raw, name if not (ctrl or alt) else f"{name}+mod")
    if ctrl and not alt and 0x61 <= code <= 0x7A:
        return Token(Kind.KEY, raw, f"ctrl-{chr(code)}")
    if alt or ctrl or code < 0x20 or code > 0x10FFFF:
        return Token(Kind.OTHER, raw, "csi-u")
    char = chr(code)
    return Token(Kind.TEXT, raw, char.upper() if shift else char)


def _scan_string(buffer: bytes, start: int, name: str) -> tuple[int, Token | None]:
    """OSC / DCS / SOS / PM / APC up to BEL or ST."""
    position = start + 2
    while position < len(buffer):
        byte = buffer[position]
        if byte == 0x07:
            return position + 1, Token(Kind.CONTROL_STRING, buffer[start : position + 1], name)
        if byte == ESC:
            if position + 1 >= len(buffer):
                return start, None
            if buffer[position + 1] == ord("\\"):
                raw = buffer[start : position + 2]
                return position + 2, Token(Kind.CONTROL_STRING, raw, name)
        position += 1
    if len(buffer) - start > MAX_CONTROL_STRING:
        return len(buffer), Token(Kind.OTHER, buffer[start:], name)
    return start, None
