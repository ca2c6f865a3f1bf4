"""The executor's side of an archive transfer (RW-314..317): a copy whose project is not a
git workspace travels as an archive of its files.

Source: :meth:`ArchiveTransfer.offer` writes the archive to
``$HANGAR_HOME/transfers/<transferId>/package.tar.gz`` (streamed, hashed as written) and
offers it on the device's :class:`~hangar.executor.transfer.direct.TransferListener` to the
holder of the transfer's token; :meth:`ArchiveTransfer.upload` puts the same file to a
presigned object-storage URL when the hub falls back to one. Target:
:meth:`ArchiveTransfer.fetch` fetches it directly (only from a candidate that passed the
probe) or from object storage, checks the SHA-256, extracts the project into
``$HANGAR_HOME/transfers/<transferId>/<projectDir>`` and imports the session there exactly as
a git fork does. Both sides remove the package file when they are done with it.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from hangar.agents.control import ControlUnsupported
from hangar.errors import UsageError
from hangar.executor.task_copy import TaskCopier, copy_name
from hangar.executor.transfer.archive import read_archive, write_archive
from hangar.executor.transfer.direct import DirectUnavailable, Offer, download, fetch_direct
from hangar.executor.transfer.direct import upload as put_object
from hangar.executor.transfer.service import TaskTransfer
from hangar.protocol.transfer import (
    ArchiveCopied,
    ArchiveOffer,
    FetchRequest,
    OfferRequest,
    Uploaded,
    UploadRequest,
)

if TYPE_CHECKING:
    from hangar.executor.core import ExecutorCore

PACKAGE = "package.tar.gz"


class ArchiveTransfer:
    def __init__(self, core: ExecutorCore) -> None:
        self.core = core

    def _folder(self, transfer_id: str) -> Path:
        return self.core.settings.paths.home / "transfers" / transfer_id

    # -- source -------------------------------------------------------------------------------
    def offer(self, request: OfferRequest) -> ArchiveOffer:
        task = self.core.index.get(request.local_task_id)
        turns = self.core.turns
        target = turns.target(request.local_task_id)
        control = turns.control(target, "fork")
        TaskCopier(self.core).check_turn(request.local_task_id, request.last_turn_id)
        project = Path(task.workspace_path)
        if not project.is_dir():
            raise UsageError(f"the task's directory {project} is not there to copy")
        source_path = self.core.index.row(request.local_task_id)["source_path"]
        sessions = control.session_files(target.handle, Path(source_path) if source_path else None)
        folder = self._folder(request.transfer_id)
        folder.mkdir(parents=True, exist_ok=False)
        manifest = {
            "transferId": request.transfer_id,
            "runtime": task.runtime,
            "title": task.title,
            "sourceLocalTaskId": task.local_task_id,
            "lastTurnId": request.last_turn_id,
            "handle": dict(target.handle),
            "projectDir": project.name,
        }
        path = folder / PACKAGE
        digest, size = write_archive(path, manifest, sessions, project)
        port = self.core.transfer_listener.offer(
            request.transfer_id, Offer(request.token, path, size)
        )
        return ArchiveOffer(transfer_id=request.transfer_id, port=port, sha256=digest, size=size)

    def upload(self, request: UploadRequest) -> Uploaded:
        path = self._folder(request.transfer_id) / PACKAGE
        if not path.is_file():
            raise UsageError(f"transfer {request.transfer_id} has no archive on this device")
        size = path.stat().st_size
        put_object(request.url, path)
        self.finish(request.transfer_id)
        return Uploaded(transfer_id=request.transfer_id, size=size)

    def finish(self, transfer_id: str) -> None:
        """Stop offering the transfer and remove its package (source side)."""
        self.core.transfer_listener.withdraw(transfer_id)
        with contextlib.suppress(OSError):
            shutil.rmtree(self._folder(transfer_id))

    # -- target -------------------------------------------------------------------------------
    def fetch(self, request: FetchRequest) -> ArchiveCopied:
        if self.core.index.knows(request.new_local_task_id):
            raise UsageError(f"task id {request.new_local_task_id} is taken; generate a new one")
        TaskTransfer(self.core)._project(request.workspace_path)  # a project of this device
        folder = self._folder(request.transfer_id)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / PACKAGE
        host: str | None = None
        done = False
        try:
            if request.hosts and request.token:
                try:
                    host = fetch_direct(
                        list(request.hosts), request.port, request.transfer_id,
                        request.token, request.size, path,
                    )  # fmt: skip
                except DirectUnavailable:
                    if request.object_url is None:
                        raise
            if host is None:
                if request.object_url is None:
                    raise DirectUnavailable("no direct path and no object storage URL")
                download(request.object_url, {}, path, request.size)
            copied = self._import(request, path, host)
            done = True
            return copied
        finally:
            path.unlink(missing_ok=True)
            if not done:  # cleanly failed: nothing of this transfer stays on the target
                shutil.rmtree(folder, ignore_errors=True)

    def _import(self, request: FetchRequest, path: Path, host: str | None) -> ArchiveCopied:
        staging = self._folder(request.transfer_id) / "incoming"
        manifest, sessions = read_archive(path, request.sha256, staging)
        runtime, last_turn = str(manifest.get("runtime")), str(manifest.get("lastTurnId"))
        control = self.core.control(runtime)
        if control is None or "fork" not in control.operations:
            raise ControlUnsupported(runtime=runtime, operation="fork")
        name = Path(str(manifest.get("projectDir") or "project")).name or "project"
        directory = self._folder(request.transfer_id) / name
        staging.rename(directory)
        imported = control.import_session_files(sessions)
        handle = {str(k): str(v) for k, v in (manifest.get("handle") or {}).items()}
        forked = control.fork(handle, last_turn, directory)
        for session in imported:
            control.archive(session, None)
        title = copy_name(str(manifest.get("title") or ""))
        TaskCopier(self.core).register(
            request.new_local_task_id, runtime, str(directory), title, forked
        )
        return ArchiveCopied(
            local_task_id=request.new_local_task_id,
            source_local_task_id=str(manifest.get("sourceLocalTaskId") or ""),
            runtime=runtime,
            workspace_path=str(directory),
            last_turn_id=last_turn,
            via="direct" if host else "object_storage",
            host=host,
        )
