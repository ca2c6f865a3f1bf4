"""This device's terminals beside a task (``runtime.terminal.*``; ``docs/api.md``)."""

from hangar.executor.terminals.service import TerminalService

__all__ = ["TerminalService"]
