"""A small Agent Client Protocol client: JSON-RPC 2.0 over an agent's stdio.

Enough to drive any ACP agent (``opencode acp``, ``gemini --acp``, ``copilot --acp``, …)
through one conversation: :meth:`AcpClient.initialize`, :meth:`AcpClient.new_session`,
:meth:`AcpClient.prompt` (which collects every ``session/update`` notification that arrives
while the prompt is open) and :meth:`AcpClient.close`, which ends the agent process by its
PID. Messages are newline-delimited JSON objects. Requests from the agent are answered so
it never waits on us: ``session/request_permission`` with the first "allow" option, anything
else with JSON-RPC "method not found".

:func:`prompt_checklists` turns the ``plan`` updates of prompts (and the confirmed exact
checklist tool of the runtime behind ACP) into checklist updates owned by the prompt that
was open when they arrived (CL-043, CL-044, CL-050: the runtime stays the agent's own, ACP
is only the transport).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, ClassVar

from hangar.agents.checklist_events import AcpChecklistMapper
from hangar.agents.checklist_rules import ChecklistUpdate
from hangar.errors import HangarError

PROTOCOL_VERSION = 1
TERM_GRACE = 5.0


@dataclass(eq=False)
class AcpError(HangarError):
    """The agent answered with an error, went away, or did not answer in time."""

    method: str = ""
    problem: str = ""
    code: ClassVar[str] = "acp_error"
    http_status: ClassVar[int] = 502

    def render(self) -> str:
        return f"ACP {self.method}: {self.problem}"

    def details(self) -> dict[str, Any]:
        return {"method": self.method, "problem": self.problem}


@dataclass
class PromptResult:
    """One ``session/prompt``: its stop reason and the ``session/update`` params (raw,
    untruncated) that arrived while it was open, in order."""

    request_id: int
    stop_reason: str | None
    updates: list[dict[str, Any]] = field(default_factory=list)


class AcpClient:
    """Drive one ACP agent process whose stdin and stdout are pipes."""

    def __init__(self, process: subprocess.Popen[bytes], timeout: float = 120.0) -> None:
        if process.stdin is None or process.stdout is None:
            raise AcpError(method="spawn", problem="the agent needs stdin and stdout pipes")
        self.process = process
        self.timeout = timeout
        self.stderr_tail: list[str] = []
        self._stdin: IO[bytes] = process.stdin
        self._inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._next_id = 0
        self._updates: list[dict[str, Any]] = []
        threading.Thread(target=self._read, args=(process.stdout,), daemon=True).start()
        if process.stderr is not None:
            threading.Thread(target=self._drain, args=(process.stderr,), daemon=True).start()

    # -- transport -------------------------------------------------------------------
    def _read(self, stream: IO[bytes]) -> None:
        for raw in stream:
            try:
                message = json.loads(raw)
            except ValueError:
                continue  # a banner or log line on stdout is not protocol
            if isinstance(message, dict):
                self._inbox.put(message)
        self._inbox.put(None)

    def _drain(self, stream: IO[bytes]) -> None:
        for raw in stream:
            self.stderr_tail = [*self.stderr_tail[-19:], raw.decode("utf-8", "replace")]

    def _send(self, message: Mapping[str, Any]) -> None:
        data = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False) + "\n"
        try:
            self._stdin.write(data.encode("utf-8"))
            self._stdin.flush()
        except (BrokenPipeError, ValueError) as error:
            raise AcpError(method=str(message.get("method")), problem=str(error)) from None

    def request(self, method: str, params: Mapping[str, Any]) -> Any:
        """Send one request and wait for its response, handling whatever arrives first."""
        self._next_id += 1
        request_id = self._next_id
        self._send({"id": request_id, "method": method, "params": dict(params)})
        deadline = time.monotonic() + self.timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AcpError(method=method, problem=f"no answer in {self.timeout:.0f}s")
            try:
                message = self._inbox.get(timeout=remaining)
            except queue.Empty:
                continue
            if message is None:
                tail = "".join(self.stderr_tail[-3:]).strip()
                raise AcpError(method=method, problem=f"the agent exited ({tail or 'no stderr'})")
            if message.get("id") == request_id and "method" not in message:
                if "error" in message:
                    raise AcpError(method=method, problem=json.dumps(message["error"]))
                return message.get("result")
            self._incoming(message)

    def _incoming(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        params = message.get("params")
        if method == "session/update" and isinstance(params, dict):
            self._updates.append(params)
        elif method is not None and "id" in message:
            self._answer(message["id"], str(method), params)

    def _answer(self, request_id: object, method: str, params: object) -> None:
        if method == "session/request_permission" and isinstance(params, dict):
            options = params.get("options") or []
            allow = next(
                (o for o in options if isinstance(o, dict) and "allow" in str(o.get("kind"))),
                None,
            )
            outcome: dict[str, Any] = {"outcome": "cancelled"}
            if allow is not None:
                outcome = {"outcome": "selected", "optionId": allow.get("optionId")}
            self._send({"id": request_id, "result": {"outcome": outcome}})
            return
        error = {"code": -32601, "message": f"method not found: {method}"}
        self._send({"id": request_id, "error": error})

    # -- protocol --------------------------------------------------------------------
    def initialize(self) -> dict[str, Any]:
        capabilities = {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}
        result = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "clientCapabilities": capabilities,
                "clientInfo": {"name": "hangar", "version": "0"},
            },
        )
        return result if isinstance(result, dict) else {}

    def new_session(self, cwd: str, mcp_servers: Sequence[Any] = ()) -> str:
        result = self.request("session/new", {"cwd": cwd, "mcpServers": list(mcp_servers)})
        session_id = result.get("sessionId") if isinstance(result, dict) else None
        if not isinstance(session_id, str):
            raise AcpError(method="session/new", problem=f"no sessionId in {result!r}")
        return session_id

    def prompt(self, session_id: str, text: str) -> PromptResult:
        """Send one user prompt and wait for its stop reason."""
        self._updates = []
        result = self.request(
            "session/prompt",
            {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]},
        )
        stop = result.get("stopReason") if isinstance(result, dict) else None
        updates, self._updates = self._updates, []
        return PromptResult(self._next_id, stop if isinstance(stop, str) else None, updates)

    def close(self) -> None:
        """End the agent process by its PID (TERM, then KILL after a grace period)."""
        with contextlib.suppress(OSError):
            self._stdin.close()
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=TERM_GRACE)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=TERM_GRACE)


def prompt_checklists(
    session_id: str, prompts: Sequence[PromptResult], runtime: str | None = None
) -> list[ChecklistUpdate]:
    """The checklist updates in the ``session/update`` params of ``prompts``, each owned by
    its prompt (see :class:`~hangar.agents.checklist_events.AcpChecklistMapper`)."""
    mapper = AcpChecklistMapper(session_id, runtime)
    updates = []
    for prompt in prompts:
        for params in prompt.updates:
            update = mapper.feed(params, f"prompt-{prompt.request_id}")
            if update is not None:
                updates.append(update)
    return updates
