"""Copying a task to another device: ``runtime.transfer.*`` (see
:mod:`hangar.protocol.transfer` for the four calls and :mod:`hangar.executor.transfer.service`
for what each does on its device)."""

from __future__ import annotations

from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import Handler
from hangar.executor.transfer.archives import ArchiveTransfer
from hangar.executor.transfer.service import TaskTransfer
from hangar.protocol import methods as m
from hangar.protocol.copy import TaskCopied
from hangar.protocol.transfer import (
    ArchiveCopied,
    ArchiveOffer,
    CheckTarget,
    ExportRequest,
    FetchRequest,
    ImportRequest,
    OfferRequest,
    Package,
    SourceInfo,
    SourceRequest,
    TargetCheck,
    Uploaded,
    UploadRequest,
    Withdrawn,
    WithdrawRequest,
)


def source(executor: ExecutorCore, request: SourceRequest) -> SourceInfo:
    return TaskTransfer(executor).source(request)


def check(executor: ExecutorCore, request: CheckTarget) -> TargetCheck:
    return TaskTransfer(executor).check(request)


def export(executor: ExecutorCore, request: ExportRequest) -> Package:
    return TaskTransfer(executor).export(request)


def import_(executor: ExecutorCore, request: ImportRequest) -> TaskCopied:
    return TaskTransfer(executor).import_(request)


def offer(executor: ExecutorCore, request: OfferRequest) -> ArchiveOffer:
    return ArchiveTransfer(executor).offer(request)


def upload(executor: ExecutorCore, request: UploadRequest) -> Uploaded:
    return ArchiveTransfer(executor).upload(request)


def fetch(executor: ExecutorCore, request: FetchRequest) -> ArchiveCopied:
    return ArchiveTransfer(executor).fetch(request)


def withdraw(executor: ExecutorCore, request: WithdrawRequest) -> Withdrawn:
    ArchiveTransfer(executor).finish(request.transfer_id)
    return Withdrawn(transfer_id=request.transfer_id)


HANDLERS: dict[str, Handler] = {
    m.TRANSFER_WITHDRAW.name: withdraw,
    m.TRANSFER_OFFER.name: offer,
    m.TRANSFER_UPLOAD.name: upload,
    m.TRANSFER_FETCH.name: fetch,
    m.TRANSFER_SOURCE.name: source,
    m.TRANSFER_CHECK.name: check,
    m.TRANSFER_EXPORT.name: export,
    m.TRANSFER_IMPORT.name: import_,
}
