"""This device's executor for the CLI commands that need no hub (``tasks``, ``search``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from hangar.executor.service import Executor


@contextmanager
def open_executor() -> Iterator[Executor]:
    """The executor of this ``$HANGAR_HOME`` (created and migrated), closed afterwards."""
    executor = Executor.open()
    try:
        yield executor
    finally:
        executor.close()
