"""This device's identity: ``device.json`` with a stable ``deviceId`` and a name.

Created atomically on first use and never rewritten afterwards; a corrupt file is reported,
not repaired, because other devices and the hub may already know this id.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from hangar.atomicfile import create_exclusive
from hangar.errors import CorruptFileError


@dataclass(frozen=True)
class Device:
    device_id: str
    name: str
    created_at: str

    def as_json(self) -> dict[str, str]:
        return {"deviceId": self.device_id, "name": self.name, "createdAt": self.created_at}


def _parse(path: Path, data: bytes) -> Device:
    try:
        raw = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorruptFileError(path=path, problem=f"not valid JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise CorruptFileError(path=path, problem="expected a JSON object")
    device_id, name = raw.get("deviceId"), raw.get("name")
    if not isinstance(device_id, str) or not device_id.strip():
        raise CorruptFileError(path=path, problem="missing or empty 'deviceId'")
    if not isinstance(name, str):
        raise CorruptFileError(path=path, problem="missing 'name'")
    created = raw.get("createdAt")
    return Device(device_id, name, created if isinstance(created, str) else "")


def load_or_create_device(path: Path, default_name: str) -> Device:
    """Read ``device.json``, creating it once (atomically) when it does not exist."""
    try:
        return _parse(path, path.read_bytes())
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        raise CorruptFileError(path=path, problem="is a directory") from None
    device = Device(
        device_id=str(uuid.uuid4()),
        name=default_name,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    payload = (json.dumps(device.as_json(), indent=2) + "\n").encode()
    if create_exclusive(path, payload, mode=0o600):
        return device
    # Somebody else created it first: theirs wins.
    return _parse(path, path.read_bytes())
