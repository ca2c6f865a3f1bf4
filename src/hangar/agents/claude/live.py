"""One Claude Code turn over its stream-json protocol (the protocol the Agent SDKs speak).

The CLI runs as ``claude --input-format stream-json --output-format stream-json --verbose
--include-partial-messages --replay-user-messages --permission-prompt-tool stdio --resume ID``
in the session's own directory (Claude keys sessions by it). :class:`ClaudeRun` sends the
``initialize`` control request, then one user message whose ``uuid`` hangar chooses — Claude
keeps it as the transcript line's uuid, which is the turn's id in hangar's transcript — and
reads until the ``result`` line, then closes stdin and the CLI exits.

* ``stream_event`` text/thinking deltas → the observer's deltas; ``assistant`` tool_use blocks
  and ``user`` tool_result blocks → tool running/done; ``system`` ``status: compacting`` and
  ``compact_boundary`` → compaction.
* ``control_request can_use_tool`` (the permission callback) → an approval; the answer is the
  ``control_response`` the CLI waits for: ``allow`` with the unchanged input, ``allow`` plus the
  CLI's own suggested rules scoped to this session, or ``deny``.
* :meth:`ClaudeRun.interrupt` sends the ``interrupt`` control request; a CLI that does not end
  within :data:`INTERRUPT_GRACE` seconds is ended (its process group).
* a CLI that exits without a ``result`` fails the turn with its stderr's last line.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import uuid
from collections.abc import Callable
from typing import Any

from hangar.agents.turns import ApprovalDecision, ApprovalRequest, TurnObserver

INTERRUPT_GRACE = 10.0
DENIED = "The user denied this in hangar."


def stream_args(session_id: str, model: str | None, *, new: bool = False) -> list[str]:
    """Arguments of one stream-json turn on ``session_id``: ``--resume`` it, or start it
    under that id (``--session-id``) when ``new``."""
    args = [
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
        "--include-partial-messages",
        "--replay-user-messages",
        "--permission-prompt-tool",
        "stdio",
        "--session-id" if new else "--resume",
        session_id,
    ]
    return [*args, "--model", model] if model else args


def end_group(process: subprocess.Popen[bytes], grace: float = 5.0) -> None:
    """End a CLI hangar started (its own process group), then reap it."""
    if process.poll() is None:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _summary(name: str, value: Any) -> str:
    if isinstance(value, dict):
        for key in ("command", "file_path", "path", "pattern", "url", "description"):
            if isinstance(value.get(key), str):
                return str(value[key])[:300]
        return json.dumps(value, ensure_ascii=False)[:300]
    return str(value or "")[:300]


class ClaudeRun:
    """A Claude CLI process running one turn of one session."""

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        observer: TurnObserver,
        on_end: Callable[[ClaudeRun], None],
        compaction: bool = False,
    ) -> None:
        self.process = process
        self.observer = observer
        self.on_end = on_end
        self.compaction = compaction
        self.subtask_id = str(uuid.uuid4())
        self.finished = threading.Event()
        self._interrupted = False
        self._tools: dict[str, str] = {}
        self._approvals: dict[str, Callable[[], None]] = {}
        self._stderr = bytearray()
        self._write_lock = threading.Lock()
        self._lock = threading.RLock()
        self._error: str | None = None

    # -- driving --------------------------------------------------------------------------
    def start(self, content: str | list[dict[str, Any]], session_id: str) -> None:
        threading.Thread(target=self._read_stderr, daemon=True).start()
        self._write(
            {
                "type": "control_request",
                "request_id": "hangar-init",
                "request": {"subtype": "initialize", "hooks": None},
            }
        )
        with self._lock:
            self.observer.started(self.subtask_id)
        self._write(
            {
                "type": "user",
                "uuid": self.subtask_id,
                "session_id": session_id,
                "parent_tool_use_id": None,
                "message": {"role": "user", "content": content},
            }
        )
        threading.Thread(target=self._read_stdout, name="hangar-claude-turn", daemon=True).start()

    def interrupt(self) -> None:
        self._interrupted = True
        request = {"subtype": "interrupt"}
        with contextlib.suppress(OSError, ValueError):
            self._write({"type": "control_request", "request_id": "hangar-int", "request": request})
        threading.Thread(target=self._end_if_stuck, daemon=True).start()

    def _end_if_stuck(self) -> None:
        if not self.finished.wait(INTERRUPT_GRACE):
            end_group(self.process)

    def _write(self, message: dict[str, Any]) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode()
        with self._write_lock:
            stdin.write(data)
            stdin.flush()

    # -- reading ---------------------------------------------------------------------------
    def _read_stderr(self) -> None:
        stderr = self.process.stderr
        if stderr is None:
            return
        with contextlib.suppress(OSError, ValueError):
            while chunk := os.read(stderr.fileno(), 4096):
                self._stderr += chunk
                del self._stderr[:-8192]

    def _read_stdout(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            for line in stdout:
                try:
                    message = json.loads(line)
                except ValueError:
                    continue  # a banner or a partial line: never fatal
                if isinstance(message, dict):
                    with self._lock:
                        self._line(message)
                if self.finished.is_set():
                    break
        except (OSError, ValueError):
            pass
        finally:
            self._close()

    def _line(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "stream_event":
            self._stream_event(message.get("event") or {})
        elif kind == "assistant":
            self._assistant(message.get("message") or {})
        elif kind == "user":
            self._tool_results(message.get("message") or {})
        elif kind == "system":
            subtype = message.get("subtype")
            if message.get("status") == "compacting":
                self.observer.compaction("running")
            elif subtype == "compact_boundary":
                self.observer.compaction("done")
        elif kind == "control_request":
            self._control_request(message)
        elif kind == "result":
            self._result(message)

    def _stream_event(self, event: dict[str, Any]) -> None:
        if event.get("type") != "content_block_delta":
            return
        delta = event.get("delta") or {}
        item = f"block-{event.get('index', 0)}"
        if delta.get("type") == "text_delta":
            self.observer.text_delta(item, str(delta.get("text") or ""))
        elif delta.get("type") == "thinking_delta":
            self.observer.reasoning_delta(item, str(delta.get("thinking") or ""))

    def _assistant(self, message: dict[str, Any]) -> None:
        for block in message.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                tool_id = str(block.get("id") or "")
                name = str(block.get("name") or "tool")
                self._tools[tool_id] = name
                self.observer.tool(tool_id, name, "running", _summary(name, block.get("input")))

    def _tool_results(self, message: dict[str, Any]) -> None:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                tool_id = str(block.get("tool_use_id") or "")
                name = self._tools.get(tool_id, "tool")
                status = "failed" if block.get("is_error") else "done"
                self.observer.tool(tool_id, name, status, "")

    def _control_request(self, message: dict[str, Any]) -> None:
        request_id = str(message.get("request_id") or "")
        request = message.get("request") or {}
        if request.get("subtype") != "can_use_tool":
            self._respond(request_id, error=f"hangar does not handle {request.get('subtype')}")
            return
        tool = str(request.get("tool_name") or "tool")
        tool_input = request.get("input")
        suggestions = [
            s for s in request.get("permission_suggestions") or [] if isinstance(s, dict)
        ]
        approval = ApprovalRequest(
            approval_id=request_id,
            kind="tool",
            title=str(request.get("display_name") or tool),
            detail=str(request.get("description") or _summary(tool, tool_input)),
            reason=request.get("decision_reason")
            if isinstance(request.get("decision_reason"), str)
            else None,
        )
        answered = threading.Event()

        def answer(decision: ApprovalDecision) -> None:
            if answered.is_set():
                return
            answered.set()
            with self._lock:
                self._approvals.pop(request_id, None)
            if decision == "deny":
                self._respond(request_id, {"behavior": "deny", "message": DENIED})
                return
            reply: dict[str, Any] = {"behavior": "allow", "updatedInput": tool_input}
            if decision == "approve_for_session":
                reply["updatedPermissions"] = session_rules(tool, suggestions)
            self._respond(request_id, reply)

        self._approvals[request_id] = lambda: self.observer.approval_closed(request_id)
        self.observer.approval(approval, answer)

    def _respond(
        self, request_id: str, response: dict[str, Any] | None = None, error: str | None = None
    ) -> None:
        body: dict[str, Any] = {"request_id": request_id}
        if error is not None:
            body.update(subtype="error", error=error)
        else:
            body.update(subtype="success", response=response or {})
        with contextlib.suppress(OSError, ValueError):
            self._write({"type": "control_response", "response": body})

    def _result(self, message: dict[str, Any]) -> None:
        if message.get("is_error") or message.get("subtype") not in (None, "success"):
            errors = message.get("errors")
            text = message.get("result") or (
                errors[0] if isinstance(errors, list) and errors else None
            )
            status = "interrupted" if self._interrupted else "failed"
            self._end(status, str(text or message.get("subtype") or "Claude reported an error"))
        else:
            self._end("completed", None)

    def _end(self, status: str, error: str | None) -> None:
        if self.finished.is_set():
            return
        self.finished.set()
        for close in list(self._approvals.values()):
            close()
        self._approvals.clear()
        if status == "completed":
            self.observer.finished("completed")
        elif status == "interrupted":
            self.observer.finished("interrupted", error)
        else:
            self.observer.finished("failed", error)
        with contextlib.suppress(OSError, ValueError):
            if self.process.stdin is not None:
                self.process.stdin.close()  # the CLI exits after its turn

    def _close(self) -> None:
        with self._lock:
            if not self.finished.is_set():
                code = self.process.poll()
                tail = self._stderr.decode(errors="replace").strip().splitlines()
                why = f": {tail[-1][:300]}" if tail else ""
                status = "interrupted" if self._interrupted else "failed"
                self._end(status, f"claude exited before the turn ended (code {code}){why}")
        try:
            self.process.wait(timeout=INTERRUPT_GRACE)
        except subprocess.TimeoutExpired:
            end_group(self.process)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self.on_end(self)


def session_rules(tool: str, suggestions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ "Always for this session": the CLI's own suggested allow rules, kept to this session
    (never written to the user's settings files)."""
    rules = [
        {**s, "destination": "session"}
        for s in suggestions
        if s.get("type") == "addRules" and s.get("behavior") == "allow"
    ]
    return rules or [
        {
            "type": "addRules",
            "rules": [{"toolName": tool}],
            "behavior": "allow",
            "destination": "session",
        }
    ]
