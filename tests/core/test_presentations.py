"""Skill and plugin tags kept beside a transcript and placed into the agent's own text."""

from __future__ import annotations

from pathlib import Path

from hangar.executor.database import ExecutorDatabase
from hangar.executor.presentations import Presentations, with_references
from hangar.hub.pages.rendering import render_markdown
from hangar.model import Message, PresentationReference
from hangar.presentation.references import tagged_markdown
from hangar.protocol.turns import MessageReference

REFS = [MessageReference("$review:security", "skill:review:security")]


def _user(content: str, turn: str, client_id: str | None = None) -> Message:
    return Message(
        index=0,
        id=f"{turn}:user:0",
        role="user",
        turn_id=turn,
        content=content,
        client_user_message_id=client_id,
    )


def _reply(turn: str, status: str) -> Message:
    return Message(index=1, id=f"{turn}:assistant", role="assistant", turn_id=turn, status=status)  # type: ignore[arg-type]


def test_without_a_client_id_nothing_is_kept_or_matched(tmp_path: Path) -> None:
    """RW-234: a send without a stable client message id keeps no references, so no message
    is matched by its text."""
    store = Presentations(ExecutorDatabase(tmp_path / "executor.db"))
    store.record("task-1", None, "turn-1", REFS)
    assert store.for_task("task-1") == []
    shown = with_references([_user("Use $review:security now", "turn-1")], store.for_task("task-1"))
    assert shown[0].presentation_references is None


def test_references_apply_to_failed_turns_and_by_client_id(tmp_path: Path) -> None:
    """RW-233, RW-235: positions (UTF-16, after an emoji) and targets are added to the message
    with the same client id, whatever the turn's status; the body is unchanged (RW-232)."""
    store = Presentations(ExecutorDatabase(tmp_path / "executor.db"))
    store.record("task-1", "client-7", "turn-x", REFS)
    text = "🙂 Use $review:security now"
    messages = [_user(text, "turn-9", "client-7"), _reply("turn-9", "failed")]
    shown = with_references(messages, store.for_task("task-1"))
    assert shown[0].content == text
    assert shown[0].presentation_references == [
        PresentationReference(start=7, end=23, href="skill:review:security")
    ]
    html = tagged_markdown(
        {
            "content": text,
            "presentationReferences": [{"start": 7, "end": 23, "href": "skill:review:security"}],
        },
        render_markdown,
    )
    assert '<span class="ref-tag ref-skill"' in html and ">review:security</span>" in html
    assert "$review:security" not in html


def test_references_that_do_not_fit_leave_the_text_as_recorded() -> None:
    """RW-232: an out-of-range or overlapping reference never changes or hides the body."""
    message = {
        "content": "plain <b>text</b>",
        "presentationReferences": [
            {"start": 3, "end": 99, "href": "skill:x"},
            {"start": -1, "end": 2, "href": "skill:y"},
        ],
    }
    html = tagged_markdown(message, render_markdown)
    assert html == render_markdown("plain <b>text</b>")
    assert "ref-tag" not in html and "&lt;b&gt;" in html
