"""The Codex rollout projector: rollout lines in, normalized turns and messages out.

Turns come from ``event_msg/task_started`` … ``task_complete`` / ``turn_aborted``; rollouts
without those markers (old versions, other writers) get an implicit turn per new user
request. The request text comes from ``event_msg/user_message`` where a version writes it,
else (codex 0.171) from user ``response_item`` messages and ``item_completed`` UserMessage,
with injected context removed (:mod:`hangar.agents.codex.context`). Unknown record types and
undecodable lines are counted in ``summary().skipped`` and never raise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple, cast

import msgspec

from hangar.agents.base import Carry, SessionSummary
from hangar.agents.checklist_rules import ChecklistLedger
from hangar.agents.checklists import from_codex_update_plan
from hangar.agents.codex import records as r
from hangar.agents.codex.context import image_attachment, image_wrapper, visible_request
from hangar.agents.codex.subagents import ChildLoader, referenced_threads
from hangar.agents.codex.tools import (
    changes_from_event,
    changes_from_patch,
    duration_ms,
    exit_code_error,
    file_changes_block,
    parse_arguments,
    set_output,
)
from hangar.agents.codex.turns import CodexTurn, Entry, UserEntry
from hangar.agents.json_fields import raw_value, text_or_none
from hangar.agents.projection import TurnProjector
from hangar.agents.text import content_text
from hangar.agents.tool_kinds import tool_kind
from hangar.image_types import preview_from_data_url
from hangar.model import (
    Attachment,
    CompactionBlock,
    ContextUsage,
    FileChangesBlock,
    ImageBlock,
    Message,
    PlanBlock,
    TextBlock,
    ThinkingBlock,
    ToolBlock,
)
from hangar.regular_files import open_regular
from hangar.tolerant_lines import repaired_after_refusal, tolerant_line

ParentLoader = Callable[[str, int], Iterable[bytes]]
"""``(parent thread id, ordinal bound)`` → the parent's history lines of a fork."""

_IGNORED_EVENTS = frozenset(
    {
        "token_count", "exec_command_begin", "patch_apply_begin", "mcp_tool_call_begin",
        "web_search_begin", "thread_settings_applied", "agent_message_delta",
        "agent_reasoning_delta", "agent_reasoning_section_break", "session_configured",
    }
)  # fmt: skip


class CodexProjector(TurnProjector):
    repairs_lone_surrogates = True  # msgspec refuses them; feed() repairs and decodes again
    accepts_line_endings = True  # every line goes to a msgspec decoder only

    def __init__(
        self,
        session_id: str,
        load_child: ChildLoader | None = None,
        load_parent: ParentLoader | None = None,
    ) -> None:
        super().__init__()
        self.session_id = session_id
        self.load_child = load_child
        self.load_parent = load_parent
        """A fork's parent history (:mod:`hangar.agents.codex.forks`), fed before the
        fork's own records when its ``session_meta`` names a parent."""
        self.child_calls: dict[str, tuple[int, ToolBlock]] = {}
        self.meta: r.SessionMeta | None = None
        self.model: str | None = None
        self.first_timestamp: str | None = None
        self.last_timestamp: str | None = None
        self.title: str | None = None
        self.context_window: int | None = None
        self.context_usage: ContextUsage | None = None
        self.checklists = ChecklistLedger()
        self.calls: dict[str, tuple[int, ToolBlock]] = {}
        self.patches: dict[str, tuple[int, FileChangesBlock]] = {}
        self.images: dict[str, tuple[int, ImageBlock]] = {}
        self._ts: str | None = None
        self._ids = _IdCounts()
        """Unnamed calls, patches and images before a resume point (for their ids)."""

    def carry(self) -> Carry:
        return {
            "model": self.model,
            "contextWindow": self.context_window,
            "contextUsage": msgspec.to_builtins(self.context_usage),
            "ids": [
                self._ids.calls + len(self.calls),
                self._ids.patches + len(self.patches),
                self._ids.images + len(self.images),
            ],
        }

    def apply_carry(self, carry: Carry) -> None:
        if not isinstance(carry, dict):
            return
        model, window = carry.get("model"), carry.get("contextWindow")
        self.model = model if isinstance(model, str) else None
        self.context_window = window if isinstance(window, int) else None
        self.context_usage = _carried_usage(carry.get("contextUsage"))
        ids = carry.get("ids")
        if isinstance(ids, list) and len(ids) == 3:
            calls, patches, images = ids
            if isinstance(calls, int) and isinstance(patches, int) and isinstance(images, int):
                self._ids = _IdCounts(calls, patches, images)

    def _next_id(self, prefix: str, kind: str) -> str:
        """An id for a record that names none, numbered across the whole file."""
        if kind == "patches":
            return f"{prefix}-{self._ids.patches + len(self.patches)}"
        if kind == "images":
            return f"{prefix}-{self._ids.images + len(self.images)}"
        return f"{prefix}-{self._ids.calls + len(self.calls)}"

    # ----------------------------------------------------------------- turns
    def _turn(self) -> CodexTurn:
        """The last turn (an implicit one if there is none yet), touched."""
        turns = self.turns
        if not turns:
            self._new_turn(None, explicit=False)
        position = len(turns) - 1
        self.touch(position)
        return cast(CodexTurn, turns[position])

    def _new_turn(self, turn_id: str | None, *, explicit: bool) -> CodexTurn:
        turn = CodexTurn(
            turn_id=turn_id or f"turn-{self.next_turn_number()}",
            explicit=explicit,
            model=self.model,
            started_at=self._ts,
        )
        self.touch(self.add_turn(turn))
        return turn

    def _add_entry(self, entry: Entry) -> CodexTurn:
        turn = self._turn()
        turn.entries.append(entry)
        turn.assistant_at = turn.assistant_at or self._ts
        return turn

    # ------------------------------------------------------------------ feed
    def feed(self, line: bytes) -> None:
        try:
            typed = r.TYPED_LINE.decode(line)
        except msgspec.DecodeError:
            repaired = repaired_after_refusal(line)
            if repaired is not None:
                self.feed(repaired)
            else:
                self._feed_loose(line)
            return
        self._ts = timestamp = typed.timestamp
        if timestamp:
            self.first_timestamp = self.first_timestamp or timestamp
            self.last_timestamp = timestamp
        _LINE_HANDLERS[type(typed)](self, typed.payload)

    def _compacted(self, compacted: r.Compacted) -> None:
        self._add_entry(Entry("compaction", CompactionBlock(text=compacted.message)))

    def _feed_loose(self, line: bytes) -> None:
        """The slow path: classify a line the typed decoder rejected."""
        try:
            envelope = r.ENVELOPE.decode(line)
        except msgspec.ValidationError:
            self.skip("invalid_record")
            return
        except msgspec.DecodeError:
            self.skip("invalid_json")
            return
        self._ts = envelope.timestamp
        if envelope.timestamp:
            self.first_timestamp = self.first_timestamp or envelope.timestamp
            self.last_timestamp = envelope.timestamp
        kind = envelope.type
        try:
            if kind == "response_item":
                self._response_item(r.RESPONSE_ITEM.decode(envelope.payload))
            elif kind == "event_msg":
                self._event(r.EVENT_MSG.decode(envelope.payload))
            elif kind == "session_meta":
                self._session_meta(r.SESSION_META.decode(envelope.payload))
            elif kind == "turn_context":
                self._turn_context(r.TURN_CONTEXT.decode(envelope.payload))
            elif kind == "compacted":
                self._compacted(r.COMPACTED.decode(envelope.payload))
            elif kind is None and envelope.role in ("user", "assistant"):
                self._loose_message(envelope.role, envelope.content)
            else:
                self.skip(kind or "untyped")
        except msgspec.DecodeError:
            self.skip(f"invalid_{kind}")

    def _session_meta(self, meta: r.SessionMeta) -> None:
        if self.meta is not None:
            return  # a parent's meta, fed from a fork's history
        self.meta = meta
        bound = meta.forked_from_ordinal_exclusive
        if self.load_parent is not None and meta.forked_from_id and bound is not None:
            for line in self.load_parent(meta.forked_from_id, bound):
                self.feed(line)

    def _turn_context(self, context: r.TurnContext) -> None:
        if context.model:
            self.model = context.model
        if self.turns:
            turn = self._turn()
            turn.model = context.model or turn.model
            if (
                isinstance(context.turn_id, str)
                and not turn.explicit
                and turn.turn_id.startswith("turn-")
            ):
                turn.turn_id = context.turn_id

    # --------------------------------------------------------------- users
    def _user(self, entry: UserEntry) -> None:
        if self.title is None and entry.text:
            self.title = entry.text.splitlines()[0][:120]
        turn = self.turns[-1] if self.turns else None
        if not isinstance(turn, CodexTurn) or self._opens_turn(turn):
            self._new_turn(None, explicit=False)
        turn = self._turn()
        entry.position = len(turn.entries)  # where it came: after the output so far (a steer)
        turn.users.append(entry)

    @staticmethod
    def _opens_turn(turn: CodexTurn) -> bool:
        if turn.final_status is not None:
            return True
        return not turn.explicit and turn.has_assistant_content

    def _user_parts(self, content: Any, client_id: str | None, from_event: bool) -> None:
        texts: list[str] = []
        attachments: list[Attachment] = []
        parts = content if isinstance(content, list) else [content]
        wrapped = False  # inside Codex's <image path=…> … </image> wrapper of a local image
        for part in parts:
            text = part if isinstance(part, str) else None
            if isinstance(part, dict):
                kind = part.get("type")
                if kind in ("input_text", "text", "output_text"):
                    text = part.get("text") if isinstance(part.get("text"), str) else None
                elif kind in ("input_image", "image", "localImage", "local_image") and not wrapped:
                    attachments.append(image_part(part))  # (a wrapped one is its wrapper's)
            if text is None:
                continue
            is_wrapper, path = image_wrapper(text)
            if is_wrapper:
                wrapped = not text.lstrip().startswith("</")
                if path:
                    attachments.append(image_attachment(path))
                continue
            visible = visible_request(text)
            if visible is not None:
                if visible.text:
                    texts.append(visible.text)
                attachments.extend(visible.attachments)
        if texts or attachments:
            text = "\n\n".join(texts)
            self._user(UserEntry(text, attachments, client_id, from_event, self._ts))

    def _user_event(self, event: r.EventMsg) -> None:
        message = event.message if isinstance(event.message, str) else ""
        visible = visible_request(message)
        text = visible.text if visible else ""
        attachments = list(visible.attachments) if visible else []
        # RW-221: the local paths the request named stay on the message (and ``images``
        # holds inline data: URLs, kept as checked previews).
        for key in (event.local_images, event.local_images_camel, event.images):
            for path in key if isinstance(key, list) else []:
                if isinstance(path, str):
                    attachments.append(image_part({"image_url": path}))
        if text or attachments:
            client_id = text_or_none(event.client_user_message_id)
            entry = UserEntry(text, attachments, client_id, True, self._ts)
            self._user(entry)

    def _loose_message(self, role: str, content: Any) -> None:
        if role == "user":
            self._user_parts(content, None, from_event=False)
        else:
            text = content_text(content)
            if text:
                self._add_entry(Entry("text", TextBlock(text)))

    # ------------------------------------------------------- response items
    def _response_item(self, item: r.ResponseItem) -> None:
        kind = item.type or ("message" if item.role else "")
        if kind == "message":
            if item.role == "user":
                self._user_parts(item.content, None, from_event=False)
            elif item.role == "assistant":
                text = content_text(item.content)
                if text:
                    self._add_entry(Entry("text", TextBlock(text)))
            else:
                self.skip(f"message.{item.role}")
        elif kind == "reasoning":
            summary = content_text(item.summary)
            if summary:
                self._add_entry(Entry("thinking", ThinkingBlock(summary)))
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            self._tool_call(item)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self._tool_output(text_or_none(item.call_id), item.output)
        elif kind == "web_search_call":
            call_id = item.id or f"{self._turn().turn_id}:web:{len(self._turn().entries)}"
            done = item.status in (None, "completed")
            block = ToolBlock(
                call_id, "web_search", item.action, status="done" if done else "running", kind="web"
            )
            self._add_entry(Entry("block", block))
        elif kind == "image_generation_call":
            self._image(item.id, item.result, text_or_none(item.revised_prompt))
        else:
            self.skip(f"response_item.{kind}")

    def _tool_call(self, item: r.ResponseItem) -> None:
        call_id = text_or_none(item.call_id) or item.id or self._next_id("call", "calls")
        if item.type == "local_shell_call":
            name, arguments = "local_shell", item.action
        elif item.type == "custom_tool_call":
            name, arguments = item.name or "custom_tool", item.input
        else:
            name = item.name or "function"
            arguments = parse_arguments(item.arguments)
        block = ToolBlock(call_id, name, arguments, status="running", kind=tool_kind(name))
        earlier = self.calls.get(call_id)
        if earlier is not None:
            self.reach(earlier[0])  # a reused id: a resumed projector would not know it
        turn = self._add_entry(Entry("block", block))
        position = len(self.turns) - 1
        self.calls[call_id] = (position, block)
        if name == "update_plan":
            # The raw arguments, never a display form: a long plan survives whole (CL-008).
            checklist = self.checklists.offer(
                position, from_codex_update_plan(arguments), key=call_id
            )
            if checklist is not None:
                turn.entries.append(Entry("block", checklist))
        elif name == "apply_patch" and isinstance(arguments, str | dict):
            patch = arguments if isinstance(arguments, str) else arguments.get("patch")
            if isinstance(patch, str) and call_id not in self.patches:
                changes = file_changes_block(changes_from_patch(patch), call_id)
                if changes.files:
                    turn.entries.append(Entry("block", changes))
                    self.patches[call_id] = (position, changes)

    def _tool_output(self, call_id: str | None, value: Any) -> None:
        found = self.calls.get(call_id or "")
        if found is None:
            self.skip("orphan_tool_output")
            return
        position, block = found
        self.touch(position)
        set_output(block, value)
        if block.kind == "shell" and block.output is not None:
            failed = exit_code_error(block.output)
            if failed is not None:
                block.is_error = failed

    def _image(self, call_id: str | None, result: Any, prompt: str | None) -> None:
        key = call_id or self._next_id("image", "images")
        payload = result if isinstance(result, str) and result else None
        if payload is not None and not payload.startswith("data:"):
            payload = "data:image/png;base64," + payload
        found = self.images.get(key)
        if found is not None:
            position, block = found
            self.touch(position)
            block.render_payload = block.render_payload or payload
            block.prompt = block.prompt or prompt
            return
        block = ImageBlock(render_payload=payload, prompt=prompt, mime_type="image/png")
        self._add_entry(Entry("block", block))
        self.images[key] = (len(self.turns) - 1, block)

    # --------------------------------------------------------------- events
    def _event(self, event: r.EventMsg) -> None:
        handler = _EVENT_HANDLERS.get(event.type)
        if handler is not None:
            handler(self, event)
        elif event.type.startswith("collab_") and event.type.endswith("_end"):
            self._collab_end(event)
        elif event.type not in _IGNORED_EVENTS:
            self.skip(f"event_msg.{event.type}")

    def _task_started(self, event: r.EventMsg) -> None:
        last = self.turns[-1] if self.turns else None
        if (
            isinstance(last, CodexTurn)
            and not last.explicit
            and last.final_status is None
            and not last.has_assistant_content
        ):
            self.touch(len(self.turns) - 1)
            last.explicit = True
            last.turn_id = text_or_none(event.turn_id) or last.turn_id
        else:
            self._new_turn(text_or_none(event.turn_id), explicit=True)
        if isinstance(event.model_context_window, int):
            self.context_window = event.model_context_window

    def _task_complete(self, event: r.EventMsg) -> None:
        turn = self._turn()
        turn.final_status = "done"
        turn.completed_at = self._ts
        if text_or_none(event.last_agent_message):
            turn.last_agent_message = event.last_agent_message

    def _turn_aborted(self, event: r.EventMsg) -> None:
        turn = self._turn()
        turn.final_status = "cancelled"
        turn.completed_at = self._ts

    def _legacy_turn_completed(self, event: r.EventMsg) -> None:
        turn = self._turn()
        turn.completed_at = self._ts
        if isinstance(event.usage, dict):
            try:
                turn.add_usage(msgspec.convert(event.usage, r.TokenUsage, strict=False))
            except msgspec.ValidationError:
                self.skip("invalid_usage")

    def _error(self, event: r.EventMsg) -> None:
        message = event.message if isinstance(event.message, str) else None
        if message is None and isinstance(event.error, dict):
            message = str(event.error.get("message") or event.error)
        self._turn().error = message or "error"

    def _token_count(self, event: r.EventMsg) -> None:
        info = event.info
        if info is None or info.last_token_usage is None:
            return
        last = info.last_token_usage
        self._turn().add_usage(last)
        total = info.total_token_usage
        self.context_usage = ContextUsage(
            total_tokens=total.total_tokens if total is not None else 0,
            last_tokens=last.total_tokens,
            model_context_window=info.model_context_window or self.context_window,
        )

    def _agent_message(self, event: r.EventMsg) -> None:
        if isinstance(event.message, str) and event.message:
            self._add_entry(Entry("text", TextBlock(event.message), from_event=True))

    def _agent_reasoning(self, event: r.EventMsg) -> None:
        if text_or_none(event.text):
            self._add_entry(Entry("thinking", ThinkingBlock(event.text), from_event=True))

    def _exec_end(self, event: r.EventMsg) -> None:
        self._command_done(
            text_or_none(event.call_id),
            event.command,
            event.exit_code if isinstance(event.exit_code, int) else None,
            duration_ms(event.duration),
            event,
        )

    def _command_done(
        self,
        call_id: str | None,
        command: Any,
        exit_code: int | None,
        duration: int | None,
        event: r.EventMsg | None,
        output: Any = None,
    ) -> None:
        found = self.calls.get(call_id or "")
        if found is None:
            block = ToolBlock(
                call_id or self._next_id("exec", "calls"),
                "exec_command",
                {"command": command},
                status="running",
                kind="shell",
            )
            self._add_entry(Entry("block", block))
            found = (len(self.turns) - 1, block)
            self.calls[block.tool_use_id] = found
        position, block = found
        self.touch(position)
        if block.output is None:
            if output is None and event is not None:
                output = raw_value(event.aggregated_output) or raw_value(event.stdout)
            set_output(block, output or "")
        if exit_code is not None:
            block.is_error = exit_code != 0
            block.status = "failed" if exit_code != 0 else "done"
        block.duration_ms = duration if duration is not None else block.duration_ms

    def _patch_end(self, event: r.EventMsg) -> None:
        success = event.success if isinstance(event.success, bool) else None
        self._changes_done(text_or_none(event.call_id), event.changes, success)

    def _changes_done(self, call_id: str | None, changes: Any, success: bool | None) -> None:
        """A patch that was applied (``patch_apply_end``, or 0.171's ``item_completed``
        FileChange): its files with their diffs, on the turn's file-changes block."""
        files = changes_from_event(changes)
        key = call_id or self._next_id("patch", "patches")
        found = self.patches.get(key)
        if found is not None:
            position, block = found
            self.touch(position)
            block.files = files or block.files
            block.success = success
        elif files:
            block = FileChangesBlock(files=files, tool_use_id=key, success=success)
            self._add_entry(Entry("block", block))
            self.patches[key] = (len(self.turns) - 1, block)
        call = self.calls.get(key)
        if call is not None and success is False:
            self.touch(call[0])
            call[1].is_error = True

    def _mcp_end(self, event: r.EventMsg) -> None:
        invocation = event.invocation if isinstance(event.invocation, dict) else {}
        name = f"{invocation.get('server', 'mcp')}.{invocation.get('tool', 'tool')}"
        call_id = text_or_none(event.call_id) or self._next_id("mcp", "calls")
        found = self.calls.get(call_id)
        if found is None:
            block = ToolBlock(call_id, name, invocation.get("arguments"), kind="mcp")
            self._add_entry(Entry("block", block))
            found = (len(self.turns) - 1, block)
            self.calls[call_id] = found
        position, block = found
        self.touch(position)
        result = event.result
        if isinstance(result, dict) and "Err" in result:
            set_output(block, result["Err"], is_error=True)
        else:
            ok = result.get("Ok") if isinstance(result, dict) else result
            set_output(block, ok.get("content") if isinstance(ok, dict) else ok)
        block.duration_ms = duration_ms(event.duration)

    def _item_completed(self, event: r.EventMsg) -> None:
        item = event.item if isinstance(event.item, dict) else {}
        kind = item.get("type")
        item_id = item.get("id") if isinstance(item.get("id"), str) else None
        if kind in ("UserMessage", "userMessage"):
            self._user_parts(item.get("content"), item_id, from_event=False)
        elif kind in ("AgentMessage", "agentMessage"):
            text = item.get("text") or content_text(item.get("content"))
            if isinstance(text, str) and text:
                self._add_entry(Entry("text", TextBlock(text), from_event=True))
        elif kind in ("CommandExecution", "commandExecution"):
            exit_code = item.get("exit_code", item.get("exitCode"))
            duration = item.get("duration_ms", item.get("durationMs"))
            output = item.get("aggregated_output", item.get("aggregatedOutput"))
            self._command_done(
                item_id,
                item.get("command"),
                exit_code if isinstance(exit_code, int) else None,
                duration if isinstance(duration, int) else None,
                None,
                output,
            )
        elif kind in ("FileChange", "fileChange"):
            outcome = {"completed": True, "failed": False, "declined": False}
            success = outcome.get(str(item.get("status")).lower())
            self._changes_done(item_id, item.get("changes"), success)
        elif kind in ("Plan", "plan") and isinstance(item.get("text"), str):
            self._add_entry(Entry("block", PlanBlock(item["text"])))
        else:
            self.skip(f"item_completed.{kind}")

    def _collab_end(self, event: r.EventMsg) -> None:
        """Attach (or refresh) a child thread's messages on the call that spawned it."""
        call_id = text_or_none(event.call_id)
        if event.type == "collab_agent_spawn_end":
            found = self.calls.get(call_id or "")
            if found is None:
                tool_input = {"prompt": event.prompt, "agent": event.new_agent_nickname}
                block = ToolBlock(
                    call_id or self._next_id("spawn", "calls"), "spawn_agent", tool_input
                )
                block.kind = "subagent"
                self._add_entry(Entry("block", block))
                found = (len(self.turns) - 1, block)
                self.calls[block.tool_use_id] = found
            else:
                self.reach(found[0])
            thread = text_or_none(event.new_thread_id)
            if thread:
                self.child_calls[thread] = found
        for thread in referenced_threads(event):
            spawned = self.child_calls.get(thread)
            if spawned is None or self.load_child is None:
                continue
            position, block = spawned
            self.touch(position)
            block.children = self.load_child(thread)

    def _image_end(self, event: r.EventMsg) -> None:
        result = event.result if isinstance(event.result, str) else None
        self._image(text_or_none(event.call_id), result, text_or_none(event.revised_prompt))

    def _view_image(self, event: r.EventMsg) -> None:
        if text_or_none(event.path):
            self._add_entry(Entry("block", ImageBlock(path=event.path)))

    def _compacted_event(self, event: r.EventMsg) -> None:
        self._add_entry(Entry("compaction", CompactionBlock(), from_event=True))

    # -------------------------------------------------------------- summary
    def summary(self) -> SessionSummary:
        meta = self.meta
        checklist = self.checklists.current(self.last_position)
        return SessionSummary(
            title=self.title,
            workspace_path=meta.cwd if meta else None,
            created_at=(meta.timestamp if meta else None) or self.first_timestamp,
            updated_at=self.last_timestamp,
            model=self.model,
            status=self.session_status(),
            message_count=self.message_count,
            checklist=checklist,
            context_usage=self.context_usage,
            skipped=dict(self.skipped),
        )


def _carried_usage(value: object) -> ContextUsage | None:
    """The context usage :meth:`CodexProjector.carry` wrote (its ``to_builtins`` form: camel
    keys, defaults left out), read by hand: ``msgspec.convert`` would first build the type's
    decoder, a tenth of a millisecond of a restart's first page."""
    if not isinstance(value, dict):
        return None
    total, last = value.get("totalTokens", 0), value.get("lastTokens", 0)
    window = value.get("modelContextWindow")
    if not (_is_int(total) and _is_int(last) and (window is None or _is_int(window))):
        return None
    return ContextUsage(total_tokens=total, last_tokens=last, model_context_window=window)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _IdCounts(NamedTuple):
    calls: int = 0
    patches: int = 0
    images: int = 0


_EVENT_HANDLERS = {
    "user_message": CodexProjector._user_event,
    "task_started": CodexProjector._task_started,
    "turn_started": CodexProjector._task_started,
    "task_complete": CodexProjector._task_complete,
    "turn_complete": CodexProjector._task_complete,
    "turn_aborted": CodexProjector._turn_aborted,
    "turn.completed": CodexProjector._legacy_turn_completed,
    "error": CodexProjector._error,
    "token_count": CodexProjector._token_count,
    "agent_message": CodexProjector._agent_message,
    "agent_reasoning": CodexProjector._agent_reasoning,
    "exec_command_end": CodexProjector._exec_end,
    "patch_apply_end": CodexProjector._patch_end,
    "mcp_tool_call_end": CodexProjector._mcp_end,
    "item_completed": CodexProjector._item_completed,
    "image_generation_end": CodexProjector._image_end,
    "view_image_tool_call": CodexProjector._view_image,
    "context_compacted": CodexProjector._compacted_event,
}

_LINE_HANDLERS: dict[type, Callable[[CodexProjector, Any], None]] = {
    r.ResponseItemLine: CodexProjector._response_item,
    r.EventLine: CodexProjector._event,
    r.SessionMetaLine: CodexProjector._session_meta,
    r.TurnContextLine: CodexProjector._turn_context,
    r.CompactedLine: CodexProjector._compacted,
}
"""The typed line kinds (:data:`~hangar.agents.codex.records.TypedLine`) by class."""


def read_child(path: Path) -> list[Message]:
    """All messages of a child rollout (whole file, read-only; no grandchildren)."""
    projector = CodexProjector(path.stem)
    with open_regular(path) as handle:
        for line in handle:
            if line.endswith(b"\n") and line.strip():
                projector.feed(tolerant_line(line[:-1]))
    return projector.take().messages


def image_part(part: dict[str, Any]) -> Attachment:
    """The attachment of one image part: a local path (``local_image``/``localImage``), or an
    inline ``data:`` URL kept as a checked preview; a remote URL is never fetched or shown."""
    where = part.get("path") or part.get("image_url") or part.get("url")
    if isinstance(where, dict):  # the {url: …} shape of some writers
        where = where.get("url")
    if not isinstance(where, str) or not where:
        return Attachment(name="image")
    if where.startswith("data:"):
        preview = preview_from_data_url(where)
        return Attachment(
            name="image", status="ready" if preview else None, local_preview_url=preview
        )
    if "://" in where:
        return Attachment(name="image")
    return image_attachment(where)
