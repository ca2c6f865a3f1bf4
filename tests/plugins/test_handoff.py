"""The v2 discussion session and its native plan handoff, at the protocol level: a scripted v2
adapter, a real hub, and a binder that does what ``hangar discuss`` does once the card is
confirmed (create the discussion's issue from the saved plan, create the run, switch the
reporters)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from hangar.errors import UsageError
from hangar.localrun.plugins.handoff import HandoffBinding, HandoffRequest, SwitchableTarget
from hangar.localrun.plugins.manifest import PROTOCOL_V2, load_manifest
from hangar.localrun.plugins.provider import run_discussion_session
from hangar.testing.plugin_kit_harness import Recorder

from .conftest import USER_TOKEN, LocalHub
from .hub_binder import HubBinder

PLAN = "1. Add the retry.\n2. Test the retry."


class Cancel:
    """The binder of a user who pressed Ctrl+C on the card."""

    def bind(self, request: HandoffRequest) -> HandoffBinding | None:
        return None


def plan_event() -> str:
    return json.dumps({"type": "final", "source": "scripted", "source_key": "plan:1",
                       "content": PLAN, "input": {"turnKey": "d1"}})  # fmt: skip


def test_v2_discussion_hands_off_with_binding_ids_only(
    plugin_factory: Callable[..., Path], local_hub: LocalHub, tmp_path: Path
) -> None:
    """LR-067, LR-068, LR-071, LR-145, LR-146, LR-148, LR-149: before the issue exists the
    adapter has only HANGAR_LOCALRUN_SESSION_ID; it sends handoff_ready; hangar binds (issue
    from the saved plan, run, reporters switched) and answers with issue_id, issue_key and
    run_id only — never the plan; what follows lands in the new run's execution log."""
    folder = plugin_factory(
        "planner",
        steps=["env", "turn:d1", f"emit:{plan_event()}", "handoff:h1", "turn:after"],
        protocol=PROTOCOL_V2,
        capabilities={"native_plan_handoff": True},
    )
    manifest = load_manifest(folder / "provider.json")
    discussion = Recorder()
    target = SwitchableTarget(discussion)
    binder = HubBinder(local_hub.url, USER_TOKEN, discussion, target, tmp_path / "spool")
    parent = {**os.environ, "HANGAR_TOKEN": USER_TOKEN, "HANGAR_SERVER_URL": local_hub.url,
              "HANGAR_RUN_ID": "stale", "HANGAR_LOCALRUN_SESSION_ID": "stale"}  # fmt: skip
    try:
        outcome = run_discussion_session(
            manifest, [], tmp_path, parent, session_id="discussion-42", target=target,
            binder=binder, runner=None,
        )  # fmt: skip
    finally:
        binder.close()
    assert outcome.exit_code == 0 and outcome.stats.invalid == 0
    # before the binding: the discussion's record (Q&A and the plan)
    assert [m.source_key for m in discussion.messages] == ["env", "d1:user", "d1:final", "plan:1"]
    env = json.loads(discussion.messages[0].content)
    assert env["HANGAR_LOCALRUN_SESSION_ID"] == "discussion-42"
    assert env["HANGAR_LOCALRUN_MODE"] == "discussion"
    assert "token kind" not in env  # no HANGAR_TOKEN at all
    for name in ("HANGAR_RUN_ID", "HANGAR_ISSUE_ID", "HANGAR_ISSUE_KEY", "HANGAR_TOKEN",
                 "HANGAR_SERVER_URL", "HANGAR_WORKSPACE_ID", "HANGAR_ISSUE_CONTEXT"):  # fmt: skip
        assert name not in env, name
    assert USER_TOKEN not in discussion.messages[0].content
    # the binding
    (request,) = binder.requests
    assert (request.handoff_id, request.plan_source_key, request.context) == (
        "h1", "plan:1", "current",
    )  # fmt: skip
    issue = local_hub.ok("GET", "/api/issues/HGR-1")
    assert issue["description"] == PLAN
    (run,) = local_hub.runs(issue["key"])
    # after it: the run's execution log, starting with what the adapter received
    messages = local_hub.messages(run["id"])
    assert [m["sourceKey"] for m in messages] == ["received:h1", "after:user", "after:final"]
    frame = json.loads(messages[0]["content"])
    assert frame == {
        "type": "handoff_decision",
        "handoff_id": "h1",
        "decision": "bound",
        "issue_id": issue["id"],
        "issue_key": issue["key"],
        "run_id": run["id"],
    }
    assert "retry" not in messages[0]["content"].lower()  # never the plan text


def test_a_cancelled_handoff_ends_the_adapter(
    plugin_factory: Callable[..., Path], tmp_path: Path
) -> None:
    folder = plugin_factory(
        "planner",
        steps=[f"emit:{plan_event()}", "handoff:h2", "turn:never"],
        protocol=PROTOCOL_V2,
        capabilities={"native_plan_handoff": True},
    )
    recorder = Recorder()
    outcome = run_discussion_session(
        load_manifest(folder / "provider.json"), [], tmp_path, dict(os.environ),
        session_id="d-2", target=recorder, binder=Cancel(), runner=None,
    )  # fmt: skip
    assert outcome.exit_code == 0
    received = [m for m in recorder.messages if m.source_key == "received:h2"]
    assert json.loads(received[0].content) == {
        "type": "handoff_decision", "handoff_id": "h2", "decision": "cancelled",
    }  # fmt: skip
    assert not any(m.source_key.startswith("never") for m in recorder.messages)


def test_v1_plugins_cannot_discuss(plugin_factory: Callable[..., Path], tmp_path: Path) -> None:
    """LR-143/LR-144: v1 keeps the issue-first contract; discussions refuse it."""
    manifest = load_manifest(plugin_factory("oldschool") / "provider.json")
    with pytest.raises(
        UsageError, match=r"issue-first only .*; use `hangar run ISSUE -- oldschool`"
    ):
        run_discussion_session(
            manifest, [], tmp_path, {}, session_id="d", target=Recorder(), binder=Cancel(),
            runner=None,
        )  # fmt: skip


def test_in_a_run_a_handoff_gets_the_runs_ids(
    plugin_factory: Callable[..., Path], local_hub: LocalHub, tmp_path: Path
) -> None:
    """In `hangar run` the binding exists already: a v2 handoff_ready is answered at once."""
    from .conftest import client_env, hangar, install

    home = tmp_path / "client"
    install(plugin_factory("planner", steps=["handoff:h3"], protocol=PROTOCOL_V2,
                           capabilities={"native_plan_handoff": True}), home)  # fmt: skip
    issue = local_hub.issue()
    done = hangar(["run", issue["key"], "--", "planner"], client_env(local_hub, home))
    assert done.returncode == 0, done.stderr
    run = local_hub.runs(issue["key"])[0]
    (message,) = local_hub.messages(run["id"])
    frame = json.loads(message["content"])
    assert (frame["decision"], frame["issue_key"], frame["run_id"]) == (
        "bound", issue["key"], run["id"],
    )  # fmt: skip
