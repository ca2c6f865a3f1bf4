"""Codex app-server JSON-RPC frames → run messages (anchors §A.2 table, seed LR-195..LR-204).

:class:`CodexEventMapper` sees every text frame the proxy relays, in both directions.

- Only the session's own threads count: threads the TUI started or resumed that are not
  ephemeral. Helper threads (e.g. ``threadSource: thread_title``, ``ephemeral: true``) are
  ignored, so their prompts never become user input.
- ``item/completed`` userMessage → ``user_input`` (a bare slash command is not reported; one
  with arguments is, marked ``command``/``commentable``); agentMessage → ``text``, or ``final``
  for phase ``final_answer`` / the turn's last unphased message at ``turn/completed`` when the
  turn has commentable user input (LR-167, LR-170); commandExecution started/completed →
  ``tool_use``/``tool_result`` ``exec_command``; fileChange → ``patch_apply``; plan →
  ``text`` ``Proposed Plan`` (kind ``codex_proposed_plan``); ``error`` notifications and failed
  turns → ``error``; ``item/tool/requestUserInput`` → ``text`` of kind ``user_input_request``;
  ``thread/tokenUsage/updated`` ``last`` → usage of the thread's model.
- sourceKeys: ``thread:T:turn:U:{user|agent|plan|tool}:ITEM[:text|:final|:start|:result]``,
  ``thread:T:turn:U:error[:…]`` — all from Codex's own ids.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from hangar.localrun.providers.base import MessageSink, UsageSink
from hangar.localrun.providers.slash import parse_slash
from hangar.model.run_messages import SOURCE_CODEX, MessageType, RunMessage, UsageEntry

PROVIDER = "codex"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for part in content or []:
        if isinstance(part, dict) and part.get("type") == "text":
            parts.append(str(part.get("text") or ""))
    return "\n".join(parts)


@dataclass
class _Turn:
    commentable: bool = False
    pending_agent: dict[str, Any] | None = None


@dataclass
class CodexEventMapper:
    reporter: MessageSink
    usage: UsageSink
    main_threads: set[str] = field(default_factory=set)
    helper_threads: set[str] = field(default_factory=set)
    models: dict[str, str] = field(default_factory=dict)
    _pending_starts: dict[str, bool] = field(default_factory=dict)
    _turns: dict[tuple[str, str], _Turn] = field(default_factory=dict)

    # -- frames ---------------------------------------------------------------------------
    def client_frame(self, text: str) -> None:
        frame = _load(text)
        if frame.get("method") in ("thread/start", "thread/resume", "thread/fork"):
            params = frame.get("params") or {}
            helper = bool(params.get("ephemeral")) or str(frame.get("id", "")).startswith(
                "temporary-"
            )
            self._pending_starts[str(frame.get("id"))] = helper

    def server_frame(self, text: str) -> None:
        frame = _load(text)
        if "id" in frame and "method" not in frame:
            self._response(frame)
            return
        method = frame.get("method")
        params = frame.get("params") or {}
        if method == "thread/started":
            thread = params.get("thread") or {}
            self._learn_thread(thread, helper=bool(thread.get("ephemeral")))
            return
        thread_id = str(params.get("threadId") or "")
        if thread_id not in self.main_threads:
            return
        turn_id = str(params.get("turnId") or (params.get("turn") or {}).get("id") or "")
        if method == "item/started":
            self._item_started(thread_id, turn_id, params.get("item") or {})
        elif method == "item/completed":
            self._item_completed(thread_id, turn_id, params.get("item") or {})
        elif method == "turn/completed":
            self._turn_completed(thread_id, params.get("turn") or {})
        elif method == "thread/tokenUsage/updated":
            self._usage(thread_id, params.get("tokenUsage") or {})
        elif method == "model/rerouted":
            model = params.get("toModel") or params.get("model")
            if model:
                self.models[thread_id] = str(model)
        elif method == "item/tool/requestUserInput":
            request_id = str(params.get("itemId") or frame.get("id") or "")
            questions = params.get("questions") or []
            text = "\n".join(
                str(q.get("question") or q.get("header") or "")
                for q in questions
                if isinstance(q, dict)
            )
            self._emit(
                "text",
                thread_id,
                turn_id,
                f"request:{request_id}",
                content=text,
                input={"kind": "user_input_request", "question_id": request_id,
                       "options": [q.get("options") for q in questions if isinstance(q, dict)]},
            )  # fmt: skip
        elif method == "error" and not params.get("willRetry"):
            message = str((params.get("error") or {}).get("message") or params.get("message"))
            digest = hashlib.sha256(message.encode()).hexdigest()[:16]
            self._emit("error", thread_id, turn_id, f"error:{digest}", content=message)

    def _response(self, frame: dict[str, Any]) -> None:
        helper = self._pending_starts.pop(str(frame.get("id")), None)
        result = frame.get("result")
        if helper is None or not isinstance(result, dict):
            return
        thread = result.get("thread") or {}
        self._learn_thread(thread, helper=helper or bool(thread.get("ephemeral")))
        if result.get("model") and thread.get("id"):
            self.models[str(thread["id"])] = str(result["model"])

    def _learn_thread(self, thread: dict[str, Any], helper: bool) -> None:
        thread_id = str(thread.get("id") or "")
        if not thread_id:
            return
        if helper or thread.get("threadSource") == "thread_title":
            self.helper_threads.add(thread_id)
            self.main_threads.discard(thread_id)
        elif thread_id not in self.helper_threads:
            self.main_threads.add(thread_id)
        if thread.get("model"):
            self.models.setdefault(thread_id, str(thread["model"]))

    # -- items ----------------------------------------------------------------------------
    def _turn(self, thread_id: str, turn_id: str) -> _Turn:
        return self._turns.setdefault((thread_id, turn_id), _Turn())

    def _emit(
        self, kind: MessageType, thread_id: str, turn_id: str, suffix: str, **fields: Any
    ) -> None:
        data = dict(fields.pop("input", {}) or {})
        data.update(thread_id=thread_id, turn_id=turn_id, turnKey=f"{thread_id}:{turn_id}")
        key = f"thread:{thread_id}:turn:{turn_id}:{suffix}"
        self.reporter.report(
            RunMessage(type=kind, source=SOURCE_CODEX, source_key=key, input=data, **fields)
        )

    def _flush_agent(self, thread_id: str, turn_id: str, as_final: bool) -> None:
        turn = self._turn(thread_id, turn_id)
        item, turn.pending_agent = turn.pending_agent, None
        if item is None:
            return
        final = as_final and turn.commentable
        self._emit(
            "final" if final else "text",
            thread_id,
            turn_id,
            f"agent:{item['id']}:{'final' if final else 'text'}",
            content=str(item.get("text") or ""),
            input={"item_id": item["id"]},
        )

    def _item_started(self, thread_id: str, turn_id: str, item: dict[str, Any]) -> None:
        kind, item_id = item.get("type"), str(item.get("id") or "")
        if kind in ("commandExecution", "fileChange", "mcpToolCall", "agentMessage"):
            self._flush_agent(thread_id, turn_id, as_final=False)  # more work follows it
        if kind == "commandExecution":
            self._emit(
                "tool_use",
                thread_id,
                turn_id,
                f"tool:{item_id}:start",
                tool="exec_command",
                input={"item_id": item_id, "command": item.get("command"), "cwd": item.get("cwd")},
            )
        elif kind == "fileChange":
            paths = [c.get("path") for c in item.get("changes") or [] if isinstance(c, dict)]
            self._emit(
                "tool_use",
                thread_id,
                turn_id,
                f"tool:{item_id}:start",
                tool="patch_apply",
                input={"item_id": item_id, "paths": paths},
            )

    def _item_completed(self, thread_id: str, turn_id: str, item: dict[str, Any]) -> None:
        kind, item_id = item.get("type"), str(item.get("id") or "")
        turn = self._turn(thread_id, turn_id)
        if kind == "userMessage":
            text = _text_of(item.get("content")).strip()
            slash = parse_slash(text)
            if slash is not None and not slash.args:
                return  # a bare slash command: not user input, and its turn gets no final
            data: dict[str, Any] = {"item_id": item_id}
            if slash is not None:
                data.update(command=True, slash_command=slash.name, slash_args=slash.args)
                data["commentable"] = True
            turn.commentable = turn.commentable or bool(text)
            self._emit(
                "user_input", thread_id, turn_id, f"user:{item_id}", content=text, input=data
            )
        elif kind == "agentMessage":
            phase = item.get("phase")
            if phase == "final_answer":
                turn.pending_agent = item
                self._flush_agent(thread_id, turn_id, as_final=True)
            elif phase is None:
                self._flush_agent(thread_id, turn_id, as_final=False)
                turn.pending_agent = item  # the turn's last one becomes the final reply
            else:
                self._emit(
                    "text",
                    thread_id,
                    turn_id,
                    f"agent:{item_id}:text",
                    content=str(item.get("text") or ""),
                    input={"item_id": item_id},
                )
        elif kind == "commandExecution":
            output = str(item.get("aggregatedOutput") or "")
            exit_code = item.get("exitCode")
            self._emit(
                "tool_result",
                thread_id,
                turn_id,
                f"tool:{item_id}:result",
                tool="exec_command",
                output=output,
                input={"item_id": item_id, "exit_code": exit_code, "status": item.get("status")},
            )
        elif kind == "fileChange":
            changes = item.get("changes") or []
            diff = "\n".join(str(c.get("diff") or "") for c in changes if isinstance(c, dict))
            self._emit(
                "tool_result",
                thread_id,
                turn_id,
                f"tool:{item_id}:result",
                tool="patch_apply",
                output=diff,
                input={"item_id": item_id, "status": item.get("status")},
            )
        elif kind == "plan":
            text = str(item.get("text") or "").strip()
            self._emit(
                "text",
                thread_id,
                turn_id,
                f"plan:{item_id}:text",
                content=f"Proposed Plan\n\n{text}",
                input={"item_id": item_id, "kind": "codex_proposed_plan"},
            )

    def _turn_completed(self, thread_id: str, turn: dict[str, Any]) -> None:
        turn_id = str(turn.get("id") or "")
        self._flush_agent(thread_id, turn_id, as_final=turn.get("status") == "completed")
        if turn.get("status") == "failed":
            error = turn.get("error") or {}
            message = str(error.get("message") if isinstance(error, dict) else error)
            self._emit("error", thread_id, turn_id, "error:turn", content=message)

    def _usage(self, thread_id: str, usage: dict[str, Any]) -> None:
        last = usage.get("last") or {}
        cached = int(last.get("cachedInputTokens") or 0)
        self.usage.add(
            UsageEntry(
                PROVIDER,
                self.models.get(thread_id, ""),
                input_tokens=max(0, int(last.get("inputTokens") or 0) - cached),
                output_tokens=int(last.get("outputTokens") or 0),
                cache_read_tokens=cached,
                cache_write_tokens=int(last.get("cacheWriteInputTokens") or 0),
            )
        )

    def close(self) -> None:
        """The TUI ended: report agent messages still waiting for their turn's end."""
        for (thread_id, turn_id), turn in list(self._turns.items()):
            if turn.pending_agent is not None:
                self._flush_agent(thread_id, turn_id, as_final=False)


def _load(text: str) -> dict[str, Any]:
    try:
        frame = json.loads(text)
    except ValueError:
        return {}
    return frame if isinstance(frame, dict) else {}


def inject_developer_instructions(text: str, context: str) -> str:
    """Append ``context`` to ``developerInstructions`` of a session's thread/start|resume."""
    frame = _load(text)
    if frame.get("method") not in ("thread/start", "thread/resume"):
        return text
    params = frame.get("params")
    if not isinstance(params, dict) or params.get("ephemeral"):
        return text
    if str(frame.get("id", "")).startswith("temporary-"):
        return text
    existing = params.get("developerInstructions")
    params["developerInstructions"] = f"{existing}\n\n{context}" if existing else context
    return json.dumps(frame)
