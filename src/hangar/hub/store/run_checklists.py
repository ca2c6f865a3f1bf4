"""The agent's checklist on its issue, projected from the runs' messages.

A run message whose ``input.checklist`` is set carries an update that the provider's
:class:`~hangar.agents.checklist_rules.ChecklistLedger` committed for the message's turn
(``input.turnKey``): the rules (invalid keeps the previous, child sessions stay out, a key
commits once) were applied where the agent's events were read. The hub keeps no checklist
store of its own (CL-041): the update stays on its message, and :func:`project` — called in
the transaction that stores such a message — keeps the run's current list in
``local_runs.checklist`` as a projection of those messages (CL-037):

- **Whole replacement.** An update replaces the run's list; an empty one clears it, and the
  cleared list is kept (present, no items), so older content never comes back (CL-023,
  CL-030, CL-070).
- **A turn never goes back.** An update of a turn older than the one the run's list came from
  stays on its message but does not change the list (CL-035, CL-036). Turns are ordered by
  their first user input in the run, or by the update itself when the turn has none.
- **Nothing else changes it.** A run that ends, fails or is cancelled keeps its last list as
  it was (CL-057, CL-065): the final list stays on the issue.

The issue's checklist (:func:`issue_checklists`) is the list of its most recently started run
that has one: a newer run's list replaces an older run's, never the other way round. A comment
is never written for an update: the list is data on the issue, not conversation.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from hangar.agents.checklists import checklist_to_json
from hangar.hub.store import schema
from hangar.hub.store.workspaces import iso
from hangar.model.checklist import Checklist
from hangar.model.run_messages import RunMessage

runs_t = schema.local_runs
messages_t = schema.local_run_messages


def _turn_seq(conn: Connection, run_id: str, turn_key: str | None, own_seq: int) -> int:
    """Where ``turn_key`` starts in the run: the seq of its first user input, or ``own_seq``."""
    if not turn_key:
        return own_seq
    rows = conn.execute(
        sa.select(messages_t.c.seq, messages_t.c.input)
        .where(messages_t.c.run_id == run_id, messages_t.c.type == "user_input")
        .order_by(messages_t.c.seq)
    )
    for seq, data in rows:
        if isinstance(data, dict) and data.get("turnKey") == turn_key:
            return int(seq)
    return own_seq


def project(
    conn: Connection,
    run_id: str,
    message: RunMessage,
    checklist: Checklist,
    seq: int,
    stamp: datetime,
) -> bool:
    """Apply one stored update to the run's list (see the module docstring); True when the
    list changed."""
    turn_key = message.input.get("turnKey")
    turn_key = turn_key if isinstance(turn_key, str) and turn_key else None
    current = conn.execute(sa.select(runs_t.c.checklist).where(runs_t.c.id == run_id)).scalar()
    if isinstance(current, dict) and current.get("turnKey") == turn_key and turn_key:
        turn_seq = int(current.get("turnSeq") or seq)
    else:
        turn_seq = _turn_seq(conn, run_id, turn_key, seq)
        if isinstance(current, dict) and turn_seq < int(current.get("turnSeq") or 0):
            return False  # a late update of an older turn (CL-036)
    value = {
        **checklist_to_json(checklist),
        "turnKey": turn_key,
        "turnSeq": turn_seq,
        "seq": seq,
        "updatedAt": iso(stamp),
    }
    conn.execute(sa.update(runs_t).where(runs_t.c.id == run_id).values(checklist=value))
    return True


def checklist_json(value: Any, run_id: str, cli_name: str) -> dict[str, Any] | None:
    """The API shape ``{source, items, completed, total, runId, cliName, updatedAt}``."""
    if not isinstance(value, dict) or not isinstance(value.get("items"), list):
        return None
    items = value["items"]
    done = sum(1 for item in items if isinstance(item, dict) and item.get("status") == "completed")
    return {
        "source": value.get("source"),
        "items": items,
        "completed": done,
        "total": len(items),
        "runId": run_id,
        "cliName": cli_name,
        "updatedAt": value.get("updatedAt"),
    }


def issue_checklists(engine: Engine, issue_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The current checklist of each issue that has one (its newest run with a list)."""
    if not issue_ids:
        return {}
    found: dict[str, dict[str, Any]] = {}
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(runs_t.c.issue_id, runs_t.c.id, runs_t.c.cli_name, runs_t.c.checklist)
            .where(runs_t.c.issue_id.in_(list(issue_ids)), runs_t.c.checklist.is_not(None))
            .order_by(runs_t.c.started_at.desc(), runs_t.c.id)
        )
        for issue_id, run_id, cli_name, value in rows:
            if issue_id in found:
                continue
            shown = checklist_json(value, run_id, cli_name)
            if shown is not None:
                found[issue_id] = shown
    return found


def issue_checklist(engine: Engine, issue_id: str) -> dict[str, Any] | None:
    return issue_checklists(engine, [issue_id]).get(issue_id)
