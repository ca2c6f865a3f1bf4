"""What the user has typed on the provider's current edit line, as far as hangar can tell.

The tracker sees only the keys on their way to the provider, not the provider's own editor.
It follows what it can follow exactly (characters, CSI-u characters, Backspace, pastes,
Ctrl+U, Enter, Ctrl+C) and marks the line *unknown* after keys that move inside the line or
recall history (arrows, Home, End, Delete, Tab): an unknown line never matches the trigger
until something empties it again (Enter, Ctrl+U, Ctrl+C). Terminal replies, control strings,
focus and mouse events never change it (LR-022, LR-025).
"""

from __future__ import annotations

from dataclasses import dataclass

from hangar.localrun.terminal.keys import Kind, Token

_CLEARING_KEYS = ("enter", "ctrl-u", "ctrl-c")
_UNTRACKED_KINDS = (Kind.REPLY, Kind.CONTROL_STRING, Kind.FOCUS, Kind.MOUSE, Kind.OTHER)


@dataclass
class EditLine:
    text: str = ""
    known: bool = True
    in_paste: bool = False

    def apply(self, token: Token) -> bool:
        """Update the line for ``token``; True when the trigger must be re-checked now:
        after a character, a Backspace or the end of a paste (LR-013), never inside a paste
        (LR-017)."""
        if token.kind in _UNTRACKED_KINDS:
            return False
        if token.kind is Kind.PASTE_START:
            self.in_paste = True
            return False
        if token.kind is Kind.PASTE_END:
            self.in_paste = False
            return True
        if token.kind is Kind.TEXT:
            self.text += token.name
            return not self.in_paste
        if token.is_key("backspace"):
            self.text = self.text[:-1]
            return not self.in_paste
        if token.is_key(*_CLEARING_KEYS) and not self.in_paste:
            self.reset()
            return False
        if token.is_key("enter", "tab"):  # inside a paste: part of the pasted text
            self.text += "\n" if token.name == "enter" else "\t"
            return False
        if token.is_key("escape"):
            return False
        self.known = False
        return False

    def reset(self, text: str = "") -> None:
        self.text, self.known = text, True

    def equals(self, value: str) -> bool:
        return self.known and not self.in_paste and self.text == value

    def starts_with(self, value: str) -> bool:
        return self.known and not self.in_paste and self.text.startswith(value)
