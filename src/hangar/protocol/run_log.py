"""``runtime.tasks.run_messages``: a task's transcript as local-run messages, from a point on.

How a session started outside hangar becomes a local run of an issue (docs/local-runs.md,
"Adopting a session"): the hub asks the task's device for the run messages of the task from a
transcript index on; the executor reads the agent's own transcript and maps each message to
run messages whose source keys come from the agent's own ids (session, turn, message and
tool-call ids), so asking again for the same part yields the same keys and the hub stores
nothing twice. The answer says where to ask next (``nextIndex``): the first message of the
last turn it read, since that turn may still grow.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from hangar.model import LocalTask
from hangar.model.run_messages import RunMessage
from hangar.protocol.tasks import TaskRef

Index = Annotated[int, msgspec.Meta(ge=0, le=2**31 - 1)]
MAX_RUN_MESSAGES = 2000


class RunMessagesRequest(TaskRef, kw_only=True):
    from_index: Index = 0
    """The transcript index (``Message.index``) of the first message to map."""
    limit: Annotated[int, msgspec.Meta(ge=1, le=MAX_RUN_MESSAGES)] = 500
    """At most about this many run messages: a page ends at a turn boundary (at least one
    turn per page)."""


class RunMessagesPage(TaskRef, kw_only=True, omit_defaults=False):
    task: LocalTask
    messages: list[RunMessage]
    """In transcript order; redacted and bounded (secrets never leave the device)."""
    next_index: int
    """Where the next call starts: the first message of the last turn this page read (it may
    still grow), or of the first turn it left for the next page (``hasMore``)."""
    has_more: bool = False
    total_messages: int = 0
    first_request: str | None = None
    """The session's first user request, when ``fromIndex`` is 0 (an issue can be made of
    it)."""
