"""Turn RPCs: continuing a task (RW-102..156).

* ``runtime.tasks.send {localTaskId, text, model, attachments?, clientUserMessageId?,
  retryOf?}`` → ``{localTaskId, taskId, subtaskId, kind: "reply", status: "running"}``; the
  reply streams as ``runtime.turn`` events. ``bad_request`` without a model (RW-121), ``busy``
  while a turn runs (RW-124), ``not_supported`` for an agent hangar cannot continue.
  A task whose managed worktree was removed gets it restored from its snapshot first
  (RW-203).
* ``runtime.tasks.cancel {localTaskId}`` → ``{localTaskId, accepted}`` (RW-127, RW-128).
* ``runtime.tasks.guidance {localTaskId, text, clientGuidanceId}`` → ``{…, outcome:
  accepted|no_active_turn}`` (RW-131..133).
* ``runtime.tasks.compact {localTaskId}`` → ``{…, subtaskId: "<localTaskId>-context-compact",
  kind: "compaction"}`` (RW-144..148).
* ``runtime.tasks.goal.get {localTaskId}`` → ``{localTaskId, goal}`` (read-only, RW-033).
* ``runtime.tasks.models {localTaskId}`` → ``{localTaskId, runtime, models[], operations[]}``.
* ``runtime.tasks.activity {localTaskId?}`` → ``{turns[], approvals[]}``: what runs now and
  what waits for an answer (a page that reloads restores both).
* ``runtime.tasks.approval.answer {localTaskId, approvalId, decision}`` →
  ``{localTaskId, approvalId, decision}``.
* ``runtime.agents.config.update {runtime, environment}`` → ``{runtime, environment: [names]}``:
  process-level settings of the agent's resident process; a change restarts it (RW-084..088).
"""

from __future__ import annotations

import msgspec

from hangar.agents.control import ControlUnsupported
from hangar.agents.turns import ModelChoice
from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import Handler
from hangar.protocol import methods as m
from hangar.protocol.tasks import TaskRef
from hangar.protocol.turns import (
    Activity,
    ActivityRequest,
    AgentConfigUpdate,
    AgentConfigUpdated,
    ApprovalAnswer,
    ApprovalAnswered,
    CancelResult,
    GoalResult,
    GuidanceRequest,
    GuidanceResult,
    ModelInfo,
    ModelList,
    ModelSelection,
    SendRequest,
    TurnAccepted,
)


def _choice(selection: ModelSelection | None) -> ModelChoice | None:
    if selection is None:
        return None
    return ModelChoice(selection.model_id, selection.model_type, dict(selection.options))


def send(executor: ExecutorCore, request: SendRequest) -> TurnAccepted:
    turns = executor.turns
    target = turns.target(request.local_task_id)  # an unknown task is reported first
    if target.cwd is None:
        # RW-203: a message to a task whose managed worktree was removed (with its snapshot)
        # brings the worktree back first, at its original path.
        workspace = str(executor.index.row(request.local_task_id)["workspace_path"])
        if workspace:
            executor.worktrees.restore_for_task(workspace)
    files = executor.turn_inputs.resolve(request.local_task_id, request.attachments)
    turn = turns.send(
        request.local_task_id,
        request.text,
        _choice(request.model),
        files,
        request.client_user_message_id,
        request.retry_of,
    )
    # RW-231: the tags only (never the text), by the sender's id and the turn it started.
    executor.presentations.record(
        request.local_task_id,
        request.client_user_message_id,
        turn.subtask_id,
        request.references,
    )
    return TurnAccepted(
        local_task_id=turn.local_task_id, task_id=turn.task_id, subtask_id=turn.subtask_id or ""
    )


def cancel(executor: ExecutorCore, request: TaskRef) -> CancelResult:
    accepted = executor.turns.cancel(request.local_task_id)
    return CancelResult(local_task_id=request.local_task_id, accepted=accepted)


def guidance(executor: ExecutorCore, request: GuidanceRequest) -> GuidanceResult:
    outcome = executor.turns.guidance(
        request.local_task_id, request.text, request.client_guidance_id
    )
    return GuidanceResult(
        local_task_id=request.local_task_id,
        client_guidance_id=request.client_guidance_id,
        outcome=outcome,
    )


def compact(executor: ExecutorCore, request: TaskRef) -> TurnAccepted:
    turn = executor.turns.compact(request.local_task_id)
    return TurnAccepted(
        local_task_id=turn.local_task_id,
        task_id=turn.task_id,
        subtask_id=turn.subtask_id or "",
        kind="compaction",
    )


def goal_get(executor: ExecutorCore, request: TaskRef) -> GoalResult:
    return GoalResult(
        local_task_id=request.local_task_id, goal=executor.turns.goal(request.local_task_id)
    )


def models(executor: ExecutorCore, request: TaskRef) -> ModelList:
    runtime, offered, operations = executor.turns.models(request.local_task_id)
    return ModelList(
        local_task_id=request.local_task_id,
        runtime=runtime,
        models=[
            ModelInfo(
                id=o.id,
                display_name=o.display_name,
                model_type=o.model_type,
                is_default=o.is_default,
                efforts=list(o.efforts),
            )
            for o in offered
        ],
        operations=operations,
    )


def activity(executor: ExecutorCore, request: ActivityRequest) -> Activity:
    return msgspec.convert(executor.turns.activity(request.local_task_id), Activity)


def approval_answer(executor: ExecutorCore, request: ApprovalAnswer) -> ApprovalAnswered:
    executor.turns.answer(request.local_task_id, request.approval_id, request.decision)
    return ApprovalAnswered(
        local_task_id=request.local_task_id,
        approval_id=request.approval_id,
        decision=request.decision,
    )


def agent_config(executor: ExecutorCore, request: AgentConfigUpdate) -> AgentConfigUpdated:
    control = executor.control(request.runtime)
    if control is None:
        raise ControlUnsupported(runtime=request.runtime, operation="config")
    control.configure(request.environment)
    return AgentConfigUpdated(runtime=request.runtime, environment=sorted(request.environment))


HANDLERS: dict[str, Handler] = {
    m.TASKS_SEND.name: send,
    m.TASKS_CANCEL.name: cancel,
    m.TASKS_GUIDANCE.name: guidance,
    m.TASKS_COMPACT.name: compact,
    m.TASKS_GOAL_GET.name: goal_get,
    m.TASKS_MODELS.name: models,
    m.TASKS_ACTIVITY.name: activity,
    m.TASKS_APPROVAL_ANSWER.name: approval_answer,
    m.AGENTS_CONFIG_UPDATE.name: agent_config,
}
