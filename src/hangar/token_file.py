"""The hub's token: ``HANGAR_TOKEN``, or the 0600 token file in ``$HANGAR_HOME``.

Both ends need it — the hub to check requests, the CLI and the local-run reporter to make
them — so it lives below both. A hub token has at least :data:`MIN_TOKEN_LENGTH` characters:
a shorter ``HANGAR_TOKEN`` or token file stops the hub with a message saying how to fix it.
"""

from __future__ import annotations

import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from hangar.atomicfile import create_exclusive
from hangar.errors import CorruptFileError, HangarError

MIN_TOKEN_LENGTH = 32
NEW_TOKEN_HINT = "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"


@dataclass(eq=False)
class WeakTokenError(HangarError):
    """A hub token shorter than :data:`MIN_TOKEN_LENGTH` characters."""

    source: str = ""
    length: int = 0
    hint: str = ""
    code: ClassVar[str] = "weak_token"

    def render(self) -> str:
        return (
            f"{self.source}: the token has {self.length} characters; a hub token needs at least "
            f"{MIN_TOKEN_LENGTH}: {self.hint}"
        )


def check_token_strength(token: str, source: str, hint: str) -> str:
    """``token`` if it is long enough, else :class:`WeakTokenError` naming ``source``."""
    if len(token) < MIN_TOKEN_LENGTH:
        raise WeakTokenError(source=source, length=len(token), hint=hint)
    return token


@dataclass(frozen=True)
class TokenSource:
    token: str
    origin: str
    """``HANGAR_TOKEN`` or the token file's path: what startup tells the user."""


def load_or_create_token(path: Path, environ: dict[str, str] | None = None) -> TokenSource:
    """The hub token: ``HANGAR_TOKEN`` if set, else the token file (created on first use)."""
    env = os.environ if environ is None else environ
    explicit = env.get("HANGAR_TOKEN", "").strip()
    if explicit:
        hint = f"unset HANGAR_TOKEN to use the token file, or set a long one ({NEW_TOKEN_HINT})"
        return TokenSource(check_token_strength(explicit, "HANGAR_TOKEN", hint), "HANGAR_TOKEN")
    create_exclusive(path, (secrets.token_urlsafe(32) + "\n").encode(), mode=0o600)
    hint = "delete the file and `hangar serve` creates a new one"
    return TokenSource(check_token_strength(read_token_file(path), str(path), hint), str(path))


def read_token_file(path: Path) -> str:
    """Read an existing token file; refuse one that others can read."""
    info = path.stat()
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise CorruptFileError(path=path, problem="token file is readable by others (chmod 600)")
    token = path.read_text("utf-8").strip()
    if not token:
        raise CorruptFileError(path=path, problem="token file is empty")
    return token
