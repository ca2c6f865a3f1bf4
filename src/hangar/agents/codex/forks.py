"""Forked Codex threads: the history a fork's rollout stands on.

Codex 0.171 writes a fork (``thread/fork``) without copying its parent's records: the fork's
``session_meta`` names ``forked_from_id`` and ``forked_from_ordinal_exclusive`` N, and the
fork's own records continue the parent's ``ordinal`` numbering from N. The fork's history
is therefore the parent's records with ``ordinal`` < N — themselves standing on the
grandparent when the parent is a fork too — followed by the fork's own records.
:func:`forked_history` yields those parent lines (never the parent's ``session_meta``), in
order, read-only; a parent that cannot be found yields nothing (the fork then shows only its
own records, never an error).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec

from hangar.regular_files import open_regular
from hangar.tolerant_lines import tolerant_line

MAX_DEPTH = 16
"""Forks of forks followed at most (a loop of rollouts naming each other ends here)."""

RolloutFinder = Callable[[str], Path | None]


class _Meta(msgspec.Struct):
    forked_from_id: str | None = None
    forked_from_ordinal_exclusive: int | None = None


class _Head(msgspec.Struct):
    type: str | None = None
    ordinal: int | None = None
    payload: msgspec.Raw = msgspec.Raw(b"null")


_HEAD = msgspec.json.Decoder(_Head)
_META = msgspec.json.Decoder(_Meta)


def forked_history(
    find: RolloutFinder, thread_id: str, before: int, depth: int = 0
) -> Iterator[bytes]:
    """The lines of thread ``thread_id``'s history with ``ordinal`` < ``before``."""
    path = find(thread_id)
    if path is None or depth >= MAX_DEPTH:
        return
    try:
        with open_regular(path) as handle:
            for raw in handle:
                if not raw.endswith(b"\n") or not raw.strip():
                    continue  # a partial last line is not history yet
                line = tolerant_line(raw[:-1])
                try:
                    head = _HEAD.decode(line)
                except msgspec.DecodeError:
                    yield line  # the projector counts what it cannot read
                    continue
                if head.type == "session_meta":  # numbered after the history it names
                    yield from _grandparent(find, head, before, depth)
                    continue
                if head.ordinal is not None and head.ordinal >= before:
                    return
                yield line
    except OSError:
        return


def _grandparent(find: RolloutFinder, head: _Head, before: int, depth: int) -> Iterator[bytes]:
    try:
        meta = _META.decode(head.payload) if head.payload != b"null" else _Meta()
    except msgspec.DecodeError:
        return
    if meta.forked_from_id and meta.forked_from_ordinal_exclusive is not None:
        bound = min(before, meta.forked_from_ordinal_exclusive)
        yield from forked_history(find, meta.forked_from_id, bound, depth + 1)
