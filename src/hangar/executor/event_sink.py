"""Where the executor's streamed events go (kept apart from :mod:`~hangar.executor.turn_stream`
so an executor that never runs a turn, as in ``hangar tasks show``, does not load the turns)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

EventSink = Callable[[str, dict[str, Any]], Any]
"""Where streamed events go: ``sink(event_name, data)`` (the hub's SSE bus in ``hangar serve``)."""


def null_sink(event: str, data: dict[str, Any]) -> None:
    """The sink of an executor nobody listens to (the CLI prints through its own)."""
