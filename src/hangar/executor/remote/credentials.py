"""The device token: created on the hub (``hangar device add NAME``), kept on the device.

It lives in ``$HANGAR_HOME/device-token``, mode 0600, replaced atomically when a new one is
given; a token file others can read is refused (as the hub's own token file is).
"""

from __future__ import annotations

from pathlib import Path

from hangar.atomicfile import write_atomic
from hangar.errors import UsageError
from hangar.token_file import read_token_file

MAX_TOKEN_CHARS = 200


def store_device_token(path: Path, token: str) -> str:
    """Write ``token`` (stripped) to ``path`` with mode 0600; returns it."""
    token = token.strip()
    if not token or len(token) > MAX_TOKEN_CHARS or any(c.isspace() for c in token):
        raise UsageError("a device token is one word of at most 200 characters")
    write_atomic(path, (token + "\n").encode(), mode=0o600)
    return token


def load_device_token(path: Path) -> str:
    """The stored token; a clear error when there is none yet."""
    if not path.exists():
        raise UsageError(
            f"no device token in {path}: create one on the hub with `hangar device add NAME` "
            "(or in its web UI under Devices) and pass it once with --token"
        )
    return read_token_file(path)
