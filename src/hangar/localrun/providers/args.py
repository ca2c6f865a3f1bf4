"""Reading a CLI's own command line: the flags a provider must look at, never rewrite."""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass


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


def id_value(args: Sequence[str], pattern: re.Pattern[str], *names: str) -> str | None:
    """The value of flag ``names`` when it is a session id ``pattern`` accepts, else None."""
    value = flag_value(args, names)
    return value if value is not None and pattern.match(value) else None


@dataclass(frozen=True)
class NamedSession:
    """The one session a run follows, named on its command line: the id given to
    ``--resume``/``-r`` or ``--session-id``, else a new id hangar passes as ``--session-id``."""

    session_id: str
    argv: list[str]
    resumed: bool


def named_session(args: Sequence[str], pattern: re.Pattern[str]) -> NamedSession:
    resumed = id_value(args, pattern, "--resume", "-r")
    given = id_value(args, pattern, "--session-id")
    if resumed or given:
        return NamedSession(resumed or given or "", list(args), resumed is not None)
    session = str(uuid.uuid4())
    return NamedSession(session, [args[0], "--session-id", session, *args[1:]], False)
