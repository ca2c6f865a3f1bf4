"""The live events of local-run messages, one place for every writer (API, adoption sync)."""

from __future__ import annotations

from typing import Any

from hangar.hub.events import EventBus


def publish_stored(events: EventBus, run_id: str, stored: dict[str, Any]) -> None:
    """The events of one newly stored message: ``local_run.message {runId, seq}``, and
    ``local_run.checklist {runId}`` when it carried a checklist update."""
    events.publish("local_run.message", {"runId": run_id, "seq": stored["seq"]})
    if "checklist" in (stored.get("input") or {}):
        events.publish("local_run.checklist", {"runId": run_id})
