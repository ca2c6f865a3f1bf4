"""The hub's token: ``HANGAR_TOKEN``, or the 0600 token file in ``$HANGAR_HOME``.

Both ends need it — the hub to check requests, the CLI and the local-run reporter to make
them — so it lives below both.
"""

from __future__ import annotations

import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from hangar.atomicfile import create_exclusive
from hangar.errors import CorruptFileError


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
        return TokenSource(explicit, "HANGAR_TOKEN")
    create_exclusive(path, (secrets.token_urlsafe(32) + "\n").encode(), mode=0o600)
    return TokenSource(read_token_file(path), str(path))


def read_token_file(path: Path) -> str:
    """Read an existing token file; refuse one that others can read."""
    info = path.stat()
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise CorruptFileError(path=path, problem="token file is readable by others (chmod 600)")
    token = path.read_text("utf-8").strip()
    if not token:
        raise CorruptFileError(path=path, problem="token file is empty")
    return token
