"""The inline command menu (LR-033..LR-041).

All candidates in registration order, one per row, then one help row (LR-051). The current
item has the ``>`` marker and bright-blue text reset with SGR 39; no reverse video, no
background (LR-034..LR-036). ↑/↓ wrap around (LR-037), Enter runs (LR-038), Esc closes and
keeps the typed input (LR-039), Tab completes without running (LR-040). Typing or Backspace
closes the menu and goes to the provider as usual, so the trigger is checked again.
"""

from __future__ import annotations

from hangar.localrun.terminal import ansi
from hangar.localrun.terminal.commands import Command
from hangar.localrun.terminal.keys import Kind, Token
from hangar.localrun.terminal.overlay import Action, Close, Complete, PassThrough, Run, Space, Stay

HELP = "↑/↓ select · Enter run · Tab complete · Esc close"


class Menu:
    fill = False

    def __init__(self, commands: list[Command]) -> None:
        if not commands:
            raise ValueError("a menu needs at least one command")
        self.commands = commands
        self.selected = 0

    def rows(self, space: Space) -> int:
        return min(len(self.commands) + 1, space.rows)

    def render(self, columns: int, rows: int) -> list[str]:
        lines = []
        name_width = max(ansi.width(c.name) for c in self.commands)
        for index, command in enumerate(self.commands):
            label = f"{command.name.ljust(name_width)}  {command.summary}"
            if index == self.selected:
                lines.append(ansi.blue(ansi.fit(f"> {label}", columns)))
            else:
                lines.append(ansi.fit(f"  {label}", columns))
        lines.append(ansi.fit(f"  {HELP}", columns))
        if len(lines) > rows:  # a tiny screen: keep the current item and the help row
            start = min(self.selected, len(self.commands) - (rows - 1))
            lines = lines[max(start, 0) : max(start, 0) + rows - 1] + lines[-1:]
        return lines[:rows]

    def handle(self, token: Token) -> Action:
        if token.is_key("up"):
            self.selected = (self.selected - 1) % len(self.commands)
            return Stay()
        if token.is_key("down"):
            self.selected = (self.selected + 1) % len(self.commands)
            return Stay()
        if token.is_key("enter"):
            return Run(self.commands[self.selected].name)
        if token.is_key("tab"):
            return Complete(self.commands[self.selected].name)
        if token.is_key("escape", "ctrl-c"):
            return Close()
        if token.kind in (Kind.TEXT, Kind.PASTE_START) or token.is_key("backspace", "ctrl-u"):
            return PassThrough()
        return Stay()
