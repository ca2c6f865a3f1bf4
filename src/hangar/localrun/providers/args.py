"""Reading a CLI's own command line: the flags a provider must look at, never rewrite."""

from __future__ import annotations

from collections.abc import Sequence


def flag_value(args: Sequence[str], names: Sequence[str]) -> str | None:
    """The value of the first of ``names`` in ``args`` (``--flag V`` or ``--flag=V``)."""
    for index, arg in enumerate(args[1:], 1):
        flag, eq, value = arg.partition("=")
        if flag not in names:
            continue
        if eq:
            return value or None
        if index + 1 < len(args) and not args[index + 1].startswith("-"):
            return args[index + 1]
    return None


def has_flag(args: Sequence[str], *names: str) -> bool:
    """True when ``args`` give one of ``names`` (``--flag``, ``--flag=V`` or ``--flag V``)."""
    return any(arg.split("=", 1)[0] in names for arg in args[1:])
