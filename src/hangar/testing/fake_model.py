"""The scripted fake model server (stdlib ``ThreadingHTTPServer`` on ``127.0.0.1``).

Routes: ``POST /v1/responses`` (OpenAI Responses), ``POST /v1/chat/completions`` (Chat
Completions), ``POST /v1/messages`` (Anthropic Messages; any query such as ``?beta=true`` is
ignored), ``POST /v1/messages/count_tokens``, ``GET /v1/models`` and the Gemini API's
``POST /v1beta/models/<model>:streamGenerateContent|generateContent``
(:mod:`hangar.testing.wire_gemini`). Turns are streamed as
SSE (no ``Content-Length``; the connection closes after the stream); a Chat Completions request
without ``stream: true`` gets one JSON ``chat.completion`` instead. Anything else is a clear
4xx: unknown route 404, wrong method 405, bad JSON or a missing field 400.

Reply and tool-call ids carry the request's ``seq``; after :meth:`FakeModelServer.load` with
``restart_ids=True`` they count the scenario's model requests from 1 instead (requests a CLI
makes besides, such as probing for routes, do not count), so two runs of one scenario see the
same ids.

Every request is appended to the JSONL request log: ``{seq, time, client, method, path,
api, kind, turn, status, headers, body, tools}`` with API keys redacted. ``kind`` is
``turn`` (played a scenario turn), ``side`` (a request offering no tools, e.g. opencode's
title request: answered with the scenario ``title``, script untouched), ``retry`` (same
conversation as a failed request: the error again), ``stall`` (a request held open and never
answered), ``exhausted``, ``count_tokens``, ``models`` or ``rejected``.
"""

from __future__ import annotations

import json
import re
import select
import socket
import threading
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from hangar.testing.model_reply import MODEL, Reply, SseEvent, ToolUse
from hangar.testing.scenarios import EXHAUSTED_TEXT, Scenario, with_path_from
from hangar.testing.tool_mapping import NoToolForRole, OfferedTool, resolve_call
from hangar.testing.wire_anthropic import anthropic_error, messages_stream
from hangar.testing.wire_gemini import (
    gemini_error,
    gemini_response,
    gemini_route,
    gemini_stream,
    gemini_tools,
)
from hangar.testing.wire_openai import (
    chat_completion,
    chat_stream,
    openai_error,
    responses_stream,
)

ROUTES = {
    "/v1/responses": "responses",
    "/v1/chat/completions": "chat",
    "/v1/messages": "messages",
    "/v1/messages/count_tokens": "count_tokens",
    "/v1/models": "models",
}
SECRET_HEADERS = {
    "authorization",
    "x-api-key",
    "x-goog-api-key",
    "api-key",
    "proxy-authorization",
    "cookie",
}
CONVERSATION_KEY = {
    "responses": "input",
    "chat": "messages",
    "messages": "messages",
    "gemini": "contents",
    "gemini-stream": "contents",
}
CWD_PATTERNS = (
    re.compile(r"<cwd>([^<]+)</cwd>"),
    re.compile(r"Primary working directory: (\S+)"),
    re.compile(r"[Ww]orking directory: (/\S+)"),
)


class RequestRejected(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def offered_tools(api: str, body: Mapping[str, Any]) -> list[OfferedTool]:
    """The request's tools, normalized to (name, JSON schema) across the three APIs."""
    if api.startswith("gemini"):
        return gemini_tools(body)
    tools = []
    for raw in body.get("tools") or []:
        if not isinstance(raw, Mapping):
            continue
        if api == "chat" and isinstance(raw.get("function"), Mapping):
            function = raw["function"]
            tools.append(OfferedTool(str(function.get("name")), function.get("parameters") or {}))
        elif api == "messages":
            tools.append(OfferedTool(str(raw.get("name")), raw.get("input_schema") or {}))
        elif "name" in raw:
            tools.append(OfferedTool(str(raw["name"]), raw.get("parameters") or {}))
    return tools


def workspace_hint(body: Mapping[str, Any]) -> str | None:
    """The CLI's working directory as stated in its prompt, if it states one."""
    text = json.dumps(body)
    for pattern in CWD_PATTERNS:
        match = pattern.search(text)
        if match:
            return match.group(1).replace("\\n", "").rstrip(".")
    return None


class Script:
    """The scenario cursor, shared by all handler threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.scenario = Scenario(name="empty", turns=())
        self.cursor = 0
        self.failed_conversation: str | None = None
        self.failure: tuple[int, str] | None = None
        self.delay = 0.0
        """The pause of the turn being answered (see scenarios' ``delay``)."""

    def load(self, scenario: Scenario) -> None:
        with self.lock:
            self.scenario, self.cursor = scenario, 0
            self.failed_conversation = self.failure = None


class FakeModelServer:
    """Serve :class:`Script` turns on ``host:port`` (port 0 picks a free one)."""

    def __init__(self, request_log: Path, host: str = "127.0.0.1", port: int = 0) -> None:
        self.request_log = request_log
        self.script = Script()
        self._seq = 0
        self._replies: int | None = None
        """Model requests since a ``restart_ids`` load (``None``: ids follow ``seq``)."""
        self._log_lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"fake": self})
        self.closing = threading.Event()
        self._httpd = ThreadingHTTPServer((host, port), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def load(self, scenario: Scenario, restart_ids: bool = False) -> None:
        """Play ``scenario`` from its first turn on the next request; ``restart_ids`` makes
        reply and tool-call ids count from 1 again (identical runs, identical ids)."""
        self.script.load(scenario)
        with self._log_lock:
            self._replies = 0 if restart_ids else None

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self.closing.set()  # held (stalled) requests give up
        self._httpd.shutdown()
        self._httpd.server_close()

    def next_seq(self) -> int:
        with self._log_lock:
            self._seq += 1
            return self._seq

    def log(self, entry: Mapping[str, Any]) -> None:
        with self._log_lock, self.request_log.open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry, default=str) + "\n")

    def plan_reply(
        self, api: str, body: Mapping[str, Any], seq: int
    ) -> tuple[str, Any, Reply, float]:
        """Decide the answer: ``(kind, turn index or None, reply, pause)``; raises
        RequestRejected with the scripted status for an error turn. Kind ``stall``: hold the
        request and never answer."""
        tools = offered_tools(api, body)
        with self._log_lock:
            if self._replies is not None:
                self._replies += 1
                seq = self._replies
        script = self.script
        with script.lock:
            if not tools:
                return "side", None, Reply(f"{seq:04d}", text=script.scenario.title), 0.0
            conversation = json.dumps(body.get(CONVERSATION_KEY[api]), sort_keys=True)
            if script.failure and conversation == script.failed_conversation:
                raise RequestRejected(*script.failure)  # a retry of the failed request
            if script.cursor >= len(script.scenario.turns):
                return "exhausted", None, Reply(f"{seq:04d}", text=EXHAUSTED_TEXT), 0.0
            index = script.cursor
            turn = script.scenario.turns[index]
            script.cursor += 1
            if turn.error_status is not None:
                script.failed_conversation = conversation
                script.failure = (turn.error_status, turn.error_message)
                raise RequestRejected(turn.error_status, turn.error_message)
            if turn.stall:
                return "stall", index, Reply(f"{seq:04d}"), 0.0
        tool = None
        text = turn.text
        if turn.tool is not None:
            try:
                call = with_path_from(turn.tool, json.dumps(body))
                name, args = resolve_call(call, tools, workspace_hint(body))
            except NoToolForRole as missing:
                text = str(missing)
            else:
                prefix = "toolu_fake" if api == "messages" else "call_fake"
                tool = ToolUse(f"{prefix}{seq:04d}", name, args)
        reply = Reply(f"{seq:04d}", text=text, reasoning=turn.reasoning, tool=tool)
        return "turn", index, reply, turn.delay


class _Handler(BaseHTTPRequestHandler):
    fake: FakeModelServer
    protocol_version = "HTTP/1.1"
    server_version = "hangar-fake-model/1"

    def log_message(self, format: str, *args: Any) -> None:
        """Silence stderr access logs: the JSONL request log is the record."""

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_HEAD(self) -> None:
        self._handle("HEAD")

    def _handle(self, method: str) -> None:
        seq = self.fake.next_seq()
        route = urlsplit(self.path).path.rstrip("/")
        api = ROUTES.get(route)
        gemini = gemini_route(route)
        if gemini is not None:
            api = "gemini-stream" if gemini[1] else "gemini"
        headers = {
            k.lower(): ("REDACTED" if k.lower() in SECRET_HEADERS else v)
            for k, v in self.headers.items()
        }
        entry: dict[str, Any] = {
            "seq": seq,
            "time": time.time(),
            "client": self.client_address[0],
            "method": method,
            "path": self.path,
            "api": api,
            "headers": headers,
            "body": None,
            "tools": [],
            "kind": "rejected",
            "turn": None,
            "status": 200,
        }
        # Decide the whole answer first and log it before a byte goes out, so a client
        # that has its answer always finds the request in the log.
        try:
            body = self._read_body(entry)
            if api is None:
                raise RequestRejected(404, f"fake model: no route {method} {route}")
            expected = "GET" if api == "models" else "POST"
            if method != expected:
                raise RequestRejected(405, f"fake model: {route} takes {expected}")
            if api == "models":
                entry["kind"] = "models"
                answer: list[SseEvent] | dict[str, Any] = {
                    "object": "list",
                    "data": [
                        {
                            "id": MODEL,
                            "object": "model",
                            "type": "model",
                            "display_name": "Fake Model",
                            "owned_by": "hangar",
                        }
                    ],
                }
            elif api == "count_tokens":
                entry["kind"] = "count_tokens"
                answer = {"input_tokens": max(1, len(json.dumps(body)) // 4)}
            else:
                answer = self._play(api, body, seq, entry)
        except RequestRejected as rejected:
            entry["status"] = rejected.status
            entry["error"] = str(rejected)
            self.fake.log(entry)
            self._send_error(api, rejected)
            return
        pause = float(entry.pop("_pause", 0.0))
        self.fake.log(entry)
        if entry["kind"] == "stall":
            self._hold()
        elif isinstance(answer, list):
            self._send_sse(answer, pause)
        else:
            self._send_json(200, answer)

    def _hold(self) -> None:
        """Never answer: wait until the client closes the connection or the server stops."""
        self.close_connection = True
        sock = self.connection
        while not self.fake.closing.is_set():
            readable, _, _ = select.select([sock], [], [], 0.2)
            if not readable:
                continue
            try:
                if not sock.recv(1, socket.MSG_PEEK):
                    return  # the client went away
            except OSError:
                return
            time.sleep(0.2)  # bytes we do not read (a pipelined request): keep holding

    def _read_body(self, entry: dict[str, Any]) -> Mapping[str, Any]:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.command != "POST":
            return {}
        try:
            body = json.loads(raw or b"null")
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            entry["body"] = raw[:65536].decode("utf-8", "replace")
            raise RequestRejected(400, f"fake model: request body is not JSON ({error})") from None
        entry["body"] = body
        if not isinstance(body, dict):
            raise RequestRejected(400, "fake model: request body must be a JSON object")
        return body

    def _play(
        self, api: str, body: Mapping[str, Any], seq: int, entry: dict[str, Any]
    ) -> list[SseEvent] | dict[str, Any]:
        key = CONVERSATION_KEY[api]
        if not isinstance(body.get(key), list | str):
            raise RequestRejected(400, f"fake model: missing field `{key}`")
        streamed = body.get("stream") is True or api == "gemini-stream"
        if not streamed and api not in ("chat", "gemini"):
            raise RequestRejected(400, "fake model: only streamed requests (stream: true)")
        entry["tools"] = [tool.name for tool in offered_tools(api, body)]
        try:
            kind, turn, reply, pause = self.fake.plan_reply(api, body, seq)
        except RequestRejected:
            entry["kind"] = "error"
            raise
        finally:
            # an error turn (or a retry of it) is the one just consumed
            entry["turn"] = self.fake.script.cursor - 1
        entry["kind"], entry["turn"] = kind, turn
        if pause:
            entry["_pause"] = pause
        if kind == "stall":
            return []
        if api == "responses":
            return responses_stream(reply)
        if api == "chat":
            return chat_stream(reply) if streamed else chat_completion(reply)
        if api.startswith("gemini"):
            model = (gemini_route(urlsplit(self.path).path) or (MODEL, False))[0]
            return gemini_stream(reply, model) if streamed else gemini_response(reply, model)
        return messages_stream(reply, str(body.get("model") or MODEL))

    def _send_sse(self, events: list[SseEvent], pause: float = 0.0) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        halfway = len(events) // 2
        for position, (name, data) in enumerate(events):
            if pause and position == halfway:
                self.fake.closing.wait(pause)
            payload = data if isinstance(data, str) else json.dumps(data)
            frame = (f"event: {name}\n" if name else "") + f"data: {payload}\n\n"
            self.wfile.write(frame.encode("utf-8"))
            self.wfile.flush()

    def _send_json(self, status: int, payload: Mapping[str, Any]) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _send_error(self, api: str | None, rejected: RequestRejected) -> None:
        if api in ("messages", "count_tokens"):
            payload = anthropic_error(rejected.status, str(rejected))
        elif api is not None and api.startswith("gemini"):
            payload = gemini_error(rejected.status, str(rejected))
        else:
            payload = openai_error(rejected.status, str(rejected))
        self._send_json(rejected.status, payload)
