"""The on-disk spool of run reports the hub could not take yet ("nothing lost").

Layout: ``$HANGAR_HOME/local-run-spool/<sha256(runId)>/`` (0700) holds one file (0600) per
message, ``<sha256(sourceKey)>.json``, plus ``usage.json`` (the latest cumulative usage) and
``status.json`` (the run's final status). Every file is written atomically, so a crash leaves
the old file or the new one. Re-sending is idempotent because the hub stores a message once per
(run, source, sourceKey); a file is removed only after the hub has acknowledged it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hangar.atomicfile import write_atomic
from hangar.localrun.hub_api import HubRejected, HubUnavailable, RunApi


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class SpooledItem:
    path: Path
    kind: str
    """``message``, ``usage`` or ``status``."""
    run_id: str
    order: int
    payload: Any


@dataclass(frozen=True)
class SyncResult:
    synced: int
    remaining: int
    rejected: int


class Spool:
    """Durable per-run queue of unsent reports (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def run_dir(self, run_id: str) -> Path:
        return self.root / _digest(run_id)

    def _write(self, run_id: str, name: str, kind: str, payload: Any) -> Path:
        directory = self.run_dir(run_id)
        for folder in (self.root, directory):
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            folder.chmod(0o700)
        record = {"kind": kind, "runId": run_id, "order": time.time_ns(), "payload": payload}
        path = directory / name
        write_atomic(path, json.dumps(record, ensure_ascii=False).encode("utf-8"), mode=0o600)
        return path

    def put_message(self, run_id: str, message: dict[str, Any]) -> Path:
        name = _digest(str(message["sourceKey"])) + ".json"
        return self._write(run_id, name, "message", message)

    def put_usage(self, run_id: str, usage: list[dict[str, Any]]) -> Path:
        return self._write(run_id, "usage.json", "usage", usage)

    def discard_usage(self, run_id: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            (self.run_dir(run_id) / "usage.json").unlink()

    def put_status(self, run_id: str, body: dict[str, Any]) -> Path:
        return self._write(run_id, "status.json", "status", body)

    def items(self, run_id: str | None = None) -> Iterator[SpooledItem]:
        """Spooled items in sending order: per run, messages by age, then usage, then status."""
        if not self.root.is_dir():
            return
        dirs = [self.run_dir(run_id)] if run_id else sorted(self.root.iterdir())
        rank = {"message": 0, "usage": 1, "status": 2}
        for directory in dirs:
            if not directory.is_dir():
                continue
            found: list[SpooledItem] = []
            for path in directory.glob("*.json"):
                try:
                    record = json.loads(path.read_text("utf-8"))
                    found.append(
                        SpooledItem(
                            path,
                            str(record["kind"]),
                            str(record["runId"]),
                            int(record["order"]),
                            record["payload"],
                        )
                    )
                except (OSError, ValueError, KeyError, TypeError):
                    continue  # a foreign or damaged file is left for the user to inspect
            found.sort(key=lambda item: (rank.get(item.kind, 3), item.order))
            yield from found

    def count(self, run_id: str | None = None) -> int:
        return sum(1 for _ in self.items(run_id))

    def sync(self, api: RunApi, run_id: str | None = None) -> SyncResult:
        """Send spooled items; stop a run's items at the first unavailability."""
        synced = rejected = 0
        blocked: set[str] = set()
        for item in list(self.items(run_id)):
            if item.run_id in blocked:
                continue
            try:
                if item.kind == "message":
                    api.post_message(item.run_id, item.payload)
                elif item.kind == "usage":
                    api.put_usage(item.run_id, item.payload)
                elif item.kind == "status":
                    api.patch_run(item.run_id, item.payload)
            except HubUnavailable:
                blocked.add(item.run_id)
                continue
            except HubRejected as exc:
                if exc.status not in (400, 404, 409, 422):
                    blocked.add(item.run_id)  # e.g. 401: keep everything for a later sync
                    continue
                rejected += 1  # permanently invalid: keep it aside, never resend
                item.path.rename(item.path.with_suffix(".rejected"))
                continue
            synced += 1
            with contextlib.suppress(FileNotFoundError):
                item.path.unlink()
        for directory in self.root.iterdir() if self.root.is_dir() else ():
            with contextlib.suppress(OSError):
                directory.rmdir()  # only succeeds once empty
        return SyncResult(synced, self.count(run_id), rejected)
