"""The Copilot reader on an event log written here in Copilot 1.0.102's shape (the real CLI:
``test_e2e_copilot.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hangar.localrun.providers.copilot import CopilotReader

SID = "3f1c9a52-7d4e-4b8a-9c61-0e2d5f7a8b90"


def event(kind: str, n: int, **data: Any) -> str:
    return json.dumps({"type": kind, "data": data, "id": f"e{n}", "parentId": None}) + "\n"


def kinds(reader: CopilotReader) -> list[tuple[str, str]]:
    return [(m.type, m.content) for seen in reader.read() for m in seen.messages]


def test_slash_commands_finals_and_resume_from_the_end(tmp_path: Path) -> None:
    """LR-164, LR-165, LR-179: a bare slash command is no input and its reply no final; one
    with arguments is a command; a resumed log is read from its end."""
    log = tmp_path / "events.jsonl"
    log.write_text(
        event("user.message", 1, content="/compact")
        + event("assistant.message", 2, content="Compacted.", toolRequests=[])
        + event("user.message", 3, content="/review main")
        + event("assistant.message", 4, content="Reviewed.", toolRequests=[])
    )
    reader = CopilotReader(log, SID, from_end=False)
    seen = [m for s in reader.read() for m in s.messages]
    assert [(m.type, m.content) for m in seen] == [
        ("text", "Compacted."),
        ("user_input", "/review main"),
        ("final", "Reviewed."),
    ]
    assert seen[1].input["command"] is True
    assert seen[2].source_key == f"copilot:session:{SID}:event:e4:final"
    resumed = CopilotReader(log, SID, from_end=True)
    with log.open("a") as handle:
        handle.write(event("user.message", 5, content="again"))
        handle.write(event("session.error", 6, message="model down"))
    assert kinds(resumed) == [("user_input", "again"), ("error", "model down")]
