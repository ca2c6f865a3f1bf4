"""The error hierarchy.

Every error hangar raises on purpose derives from :class:`HangarError`. Subclasses carry
fields rather than pre-formatted strings; ``str(error)`` renders one line for humans and
``code`` is the stable machine-readable name the HTTP API puts in ``{"error": {"code"}}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from pathlib import Path

SHOWN_CHARS = 60
"""How much of a caller's input an error message repeats (ids, keys, values)."""


def shown(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` short enough to repeat in an error message: the caller sent it, and an error
    must never echo unbounded input back."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def _empty_path() -> Path:
    """``Path()``, importing pathlib only when an error needs one (``hangar --help`` does
    not: every command imports this module)."""
    from pathlib import Path

    return Path()


@dataclass(eq=False)
class HangarError(Exception):
    """Root of every deliberate hangar error."""

    message: str = ""
    code: ClassVar[str] = "error"
    http_status: ClassVar[int] = 500

    def __post_init__(self) -> None:
        Exception.__init__(self, self.render())

    def render(self) -> str:
        """One line for a terminal or a log."""
        return self.message

    def details(self) -> dict[str, Any]:
        """Structured fields for the API's ``details``; empty when there are none."""
        return {}

    def __str__(self) -> str:
        return self.render()


@dataclass(eq=False)
class UsageError(HangarError):
    """The caller asked for something that cannot be done as asked (CLI exit status 2)."""

    code: ClassVar[str] = "bad_request"
    http_status: ClassVar[int] = 400


@dataclass(eq=False)
class CorruptFileError(HangarError):
    """A file hangar owns exists but cannot be read as what it should be.

    The file is never rewritten or repaired automatically: the user decides.
    """

    path: Path = field(default_factory=_empty_path)
    problem: str = ""
    code: ClassVar[str] = "corrupt_file"

    def render(self) -> str:
        return f"{self.path}: {self.problem}"

    def details(self) -> dict[str, Any]:
        return {"path": str(self.path), "problem": self.problem}


@dataclass(eq=False)
class SettingError(HangarError):
    """A setting has a value of the wrong type or outside its range."""

    name: str = ""
    source: str = ""
    problem: str = ""
    code: ClassVar[str] = "invalid_setting"
    http_status: ClassVar[int] = 400

    def render(self) -> str:
        return f"{self.source}: setting {self.name!r}: {self.problem}"

    def details(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "problem": self.problem}


@dataclass(eq=False)
class NotFoundError(HangarError):
    """A named thing does not exist."""

    kind: str = ""
    key: str = ""
    code: ClassVar[str] = "not_found"
    http_status: ClassVar[int] = 404

    def render(self) -> str:
        return self.message or f"{self.kind} not found: {shown(self.key)}"

    def details(self) -> dict[str, Any]:
        return {"kind": self.kind, "key": shown(self.key)}


@dataclass(eq=False)
class AmbiguousError(HangarError):
    """A prefix or name matches more than one thing."""

    kind: str = ""
    key: str = ""
    candidates: tuple[str, ...] = ()
    code: ClassVar[str] = "ambiguous"
    http_status: ClassVar[int] = 409

    def render(self) -> str:
        listed = ", ".join(self.candidates[:5])
        more = "…" if len(self.candidates) > 5 else ""
        return f"{self.kind} {shown(self.key)!r} is ambiguous: {listed}{more}"

    def details(self) -> dict[str, Any]:
        return {"kind": self.kind, "key": shown(self.key), "candidates": list(self.candidates[:20])}


@dataclass(eq=False)
class DatabaseError(HangarError):
    """A database could not be opened or migrated."""

    path: str = ""
    problem: str = ""
    code: ClassVar[str] = "database_error"

    def render(self) -> str:
        return f"{self.path}: {self.problem}"
