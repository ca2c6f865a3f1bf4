"""Copying a task to another device: ``runtime.transfer.*`` (see
:mod:`hangar.protocol.transfer` for the four calls and :mod:`hangar.executor.transfer.service`
for what each does on its device)."""

from __future__ import annotations

from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import Handler
from hangar.executor.transfer.service import TaskTransfer
from hangar.protocol import methods as m
from hangar.protocol.copy import TaskCopied
from hangar.protocol.transfer import (
    CheckTarget,
    ExportRequest,
    ImportRequest,
    Package,
    SourceInfo,
    SourceRequest,
    TargetCheck,
)


def source(executor: ExecutorCore, request: SourceRequest) -> SourceInfo:
    return TaskTransfer(executor).source(request)


def check(executor: ExecutorCore, request: CheckTarget) -> TargetCheck:
    return TaskTransfer(executor).check(request)


def export(executor: ExecutorCore, request: ExportRequest) -> Package:
    return TaskTransfer(executor).export(request)


def import_(executor: ExecutorCore, request: ImportRequest) -> TaskCopied:
    return TaskTransfer(executor).import_(request)


HANDLERS: dict[str, Handler] = {
    m.TRANSFER_SOURCE.name: source,
    m.TRANSFER_CHECK.name: check,
    m.TRANSFER_EXPORT.name: export,
    m.TRANSFER_IMPORT.name: import_,
}
