"""Claude Code's native plan handoff in a discussion (LR-209..LR-215).

In a discussion Claude runs with ``--permission-mode plan`` (unless the user chose a mode)
and the temporary settings file gets, besides the SessionStart hook, one ``PostToolUse`` hook
with the matcher ``ExitPlanMode``: it fires when the user has approved Claude's plan in
Claude's own dialog (the native "implement" action). The hook (``hangar __claude-plan-hook``)
forwards its payload to the hook server, where :func:`plan_hook` hands the raw plan
(``tool_input.plan``) to :meth:`~hangar.localrun.providers.base.DiscussionHooks.native_handoff`
and answers when that returns:

- bound (issue and run exist): an empty answer; the hook returns and the same Claude
  session goes on implementing (LR-211, LR-212);
- cancelled (Ctrl+C on the card): hangar ends Claude and the hook answers
  ``{"decision": "block", "reason": …}`` (LR-213).

The answer never carries the issue's description (LR-215). There is no PreToolUse hook, no
injected context and no ``/clear`` orchestration (LR-214). Plans Claude proposes are also
picked up from the transcript (:class:`PlanTap`: the ``ExitPlanMode`` tool call), so a later
``/hangarcreateissue`` offers the latest one even when the user kept planning.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from typing import Any

from hangar.localrun.providers.base import DiscussionHooks, HandoffResult, PlanHandoff
from hangar.localrun.providers.claude import hook_settings
from hangar.model.run_messages import SOURCE_CLAUDE, RunMessage, UsageEntry

PLAN_HOOK_PATH = "/hook/exit-plan-mode"
PLAN_TOOL = "ExitPlanMode"
HOOK_TIMEOUT = 24 * 3600
"""Seconds Claude lets the plan hook run: the card waits for the user, however long."""
BLOCK_REASON = (
    "The user cancelled creating the issue for this plan in hangar; hangar ends this session. "
    "Do not implement the plan."
)


def plan_key(session_id: str, tool_use_id: str) -> str:
    """The sourceKey of a plan: the same from the transcript and from the hook."""
    return f"claude:session:{session_id}:plan:{tool_use_id}"


class PlanTap:
    """The tracker's sink in a discussion: everything goes on to ``hooks.sink``, and an
    ``ExitPlanMode`` call is also saved as the discussion's plan."""

    def __init__(self, hooks: DiscussionHooks) -> None:
        self.hooks = hooks

    def report(self, message: RunMessage) -> None:
        if message.type == "tool_use" and message.tool == PLAN_TOOL:
            arguments = message.input.get("input") or {}
            plan = arguments.get("plan") if isinstance(arguments, dict) else None
            session_id = str(message.input.get("session_id") or "")
            tool_id = str(message.input.get("tool_use_id") or "")
            if isinstance(plan, str) and plan.strip() and tool_id:
                self.hooks.plan_proposed(plan, SOURCE_CLAUDE, plan_key(session_id, tool_id))
        self.hooks.sink.report(message)

    def add(self, delta: UsageEntry) -> None:
        self.hooks.sink.add(delta)


def plan_hook(
    hooks: DiscussionHooks,
) -> tuple[str, Callable[[dict[str, Any]], tuple[bytes, Callable[[], None] | None]]]:
    """The hook server's route and handler for ``PostToolUse: ExitPlanMode`` reports."""

    def handle(payload: dict[str, Any]) -> tuple[bytes, Callable[[], None] | None]:
        plan = approved_plan(payload)
        if payload.get("tool_name") != PLAN_TOOL or plan is None:
            return b"", None  # not the plan action: let Claude go on
        key = plan_key(str(payload.get("session_id") or ""), str(payload.get("tool_use_id") or ""))
        result = hooks.native_handoff(PlanHandoff(plan, SOURCE_CLAUDE, key))
        if result is HandoffResult.BOUND:
            return b"", None
        # End Claude first, so the blocked action cannot be acted on in the moment between
        # the answer and the end; the answer still says what happened.
        hooks.end_provider()
        answer = {"decision": "block", "reason": BLOCK_REASON}
        return json.dumps(answer).encode(), None

    return PLAN_HOOK_PATH, handle


def approved_plan(payload: dict[str, Any]) -> str | None:
    """The plan of a ``PostToolUse: ExitPlanMode`` report. Claude 2.1.332 reads the plan from
    its plan file and reports it in ``tool_response.plan`` (``tool_input`` is empty by then);
    ``tool_input.plan`` is where older versions had it."""
    for part in ("tool_response", "tool_input"):
        value = payload.get(part)
        plan = value.get("plan") if isinstance(value, dict) else None
        if isinstance(plan, str):
            return plan
    return None


def discussion_settings(port: int, token: str) -> dict[str, Any]:
    """The temporary settings of a discussion: SessionStart plus the ExitPlanMode hook."""
    settings = hook_settings(port, token)
    command = shlex.join(
        [sys.executable, "-m", "hangar", "__claude-plan-hook", "--port", str(port),
         "--token", token]
    )  # fmt: skip
    hook = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}
    settings["hooks"]["PostToolUse"] = [{"matcher": PLAN_TOOL, "hooks": [hook]}]
    return settings
