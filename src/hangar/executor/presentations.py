"""Skill and plugin tags of sent messages, kept beside the agent's transcript (RW-231..235).

An agent's transcript keeps a user's message as plain text (Codex writes ``$review:security``
as those characters). When a client sends a message with rich-text references and a
``clientUserMessageId``, :meth:`Presentations.record` keeps only the references' tokens and
targets (table ``user_message_presentations``), with the turn id the send started — never a
second copy of the text. Reading a transcript, :func:`with_references` gives each user message
sent that way its ``presentationReferences``: where each token stands in the agent's own
``content`` (UTF-16 offsets) and its target. The message is found by its
``clientUserMessageId``, or — where the agent records its own id for the message instead of the
sender's (Codex 0.171) — as the first user message of the turn that send started: both are
identities the send recorded, never a guess from the text; a send without a client id keeps
nothing (RW-234). Running, finished and failed turns are treated alike (RW-235).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import msgspec

from hangar.executor.database import ExecutorDatabase
from hangar.model import Message, PresentationReference
from hangar.protocol.turns import MessageReference

_DECODE = msgspec.json.Decoder(list[MessageReference]).decode
_ENCODE = msgspec.json.Encoder().encode


@dataclass(frozen=True)
class Sent:
    client_id: str
    turn_id: str | None
    references: list[MessageReference]


class Presentations:
    def __init__(self, db: ExecutorDatabase) -> None:
        self.db = db

    def record(
        self,
        local_task_id: str,
        client_id: str | None,
        turn_id: str | None,
        references: Sequence[MessageReference],
    ) -> None:
        """Keep ``references`` of a sent message (nothing without a client id)."""
        if not client_id or not references:
            return
        now = datetime.now(UTC).isoformat(timespec="seconds")
        with self.db.write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO user_message_presentations"
                " (local_task_id, client_user_message_id, turn_id, refs, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (
                    local_task_id,
                    client_id,
                    turn_id or None,
                    _ENCODE(list(references)).decode(),
                    now,
                ),
            )

    def for_task(self, local_task_id: str) -> list[Sent]:
        try:
            rows = (
                self.db.read()
                .execute(
                    "SELECT client_user_message_id, turn_id, refs FROM user_message_presentations"
                    " WHERE local_task_id = ?",
                    (local_task_id,),
                )
                .fetchall()
            )
        except sqlite3.DatabaseError:
            return []  # derived presentation only: the transcript is still shown
        sent = []
        for client_id, turn_id, refs in rows:
            try:
                sent.append(Sent(client_id, turn_id, _DECODE(refs)))
            except msgspec.DecodeError:
                continue
        return sent


def _utf16(text: str, index: int) -> int:
    return len(text[:index].encode("utf-16-le")) // 2


def positions(content: str, references: Sequence[MessageReference]) -> list[PresentationReference]:
    """Where each token stands in ``content``, in order; a token the agent's text no longer
    holds is left out (the body is never changed to fit a reference)."""
    found: list[PresentationReference] = []
    cursor = 0
    for reference in references:
        at = content.find(reference.token, cursor)
        if at < 0:
            continue
        end = at + len(reference.token)
        found.append(
            PresentationReference(_utf16(content, at), _utf16(content, end), reference.href)
        )
        cursor = end
    return found


def with_references(messages: Sequence[Message], sent: Sequence[Sent]) -> list[Message]:
    """``messages`` with ``presentationReferences`` on the user messages ``sent`` names."""
    if not sent:
        return list(messages)
    by_client = {s.client_id: s for s in sent}
    by_turn = {s.turn_id: s for s in sent if s.turn_id}
    first_of_turn: set[str] = set()
    result: list[Message] = []
    for message in messages:
        match = None
        if message.role == "user":
            match = by_client.get(message.client_user_message_id or "")
            if match is None and message.turn_id not in first_of_turn:
                match = by_turn.get(message.turn_id)
            first_of_turn.add(message.turn_id)
        found = positions(message.content, match.references) if match else []
        if found:
            message = msgspec.structs.replace(message, presentation_references=found)
        result.append(message)
    return result
