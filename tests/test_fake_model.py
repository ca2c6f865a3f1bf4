"""The fake model server on the test's own loopback: routes, errors, scripting, mapping."""

from __future__ import annotations

import http.client
import json
from importlib import resources
from typing import Any

import pytest

from hangar.testing.fake_model import FakeModelServer
from hangar.testing.scenarios import (
    EXHAUSTED_TEXT,
    ScenarioError,
    builtin_scenario,
    scenario_from_dict,
)

BASH = {
    "type": "function",
    "function": {
        "name": "bash",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}, "description": {"type": "string"}},
            "required": ["command", "description"],
        },
    },
}
EXEC = {
    "type": "function",
    "name": "exec_command",
    "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}},
}
CLAUDE_BASH = {
    "name": "Bash",
    "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}},
}


def post(
    server: FakeModelServer,
    path: str,
    body: Any,
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    data = raw if raw is not None else json.dumps(body).encode()
    connection.request("POST", path, body=data, headers=headers or {})
    response = connection.getresponse()
    payload = response.read()
    connection.close()
    return response.status, payload


def sse(payload: bytes) -> list[Any]:
    """The ``data:`` payloads of an SSE stream, JSON-decoded where they are JSON."""
    events = []
    for line in payload.decode().splitlines():
        if line.startswith("data: "):
            data = line[len("data: ") :]
            events.append(data if data == "[DONE]" else json.loads(data))
    return events


def log(server: FakeModelServer) -> list[dict[str, Any]]:
    return [json.loads(line) for line in server.request_log.read_text().splitlines()]


def load(server: FakeModelServer, *turns: dict[str, Any], title: str = "T") -> None:
    server.load(scenario_from_dict({"name": "t", "title": title, "turns": list(turns)}))


def chat_body(tools: list[Any] | None = None) -> dict[str, Any]:
    return {
        "model": "fake-model",
        "stream": True,
        "tools": tools or [BASH],
        "messages": [{"role": "user", "content": "hi"}],
    }


def test_bad_json_is_400_and_logged(fake_model: FakeModelServer) -> None:
    status, payload = post(fake_model, "/v1/chat/completions", None, raw=b"{not json")
    assert status == 400
    assert "not JSON" in json.loads(payload)["error"]["message"]
    entry = log(fake_model)[-1]
    assert (entry["kind"], entry["status"], entry["body"]) == ("rejected", 400, "{not json")


@pytest.mark.parametrize(
    ("path", "body", "status", "message"),
    [
        ("/v1/messages", {"stream": True}, 400, "missing field `messages`"),
        ("/v1/responses", {"stream": True, "tools": []}, 400, "missing field `input`"),
        ("/v1/responses", {"input": [], "tools": []}, 400, "only streamed requests"),
        ("/v1/chat/completions", [1, 2], 400, "must be a JSON object"),
        ("/v1/engines", {}, 404, "no route POST /v1/engines"),
        ("/v1/models", {}, 405, "takes GET"),
    ],
)
def test_malformed_requests_get_a_clear_4xx(
    fake_model: FakeModelServer, path: str, body: Any, status: int, message: str
) -> None:
    got, payload = post(fake_model, path, body)
    assert got == status
    error = json.loads(payload)["error"]
    assert message in error["message"]
    entry = log(fake_model)[-1]
    assert entry["status"] == status and entry["kind"] == "rejected" and message in entry["error"]


def test_anthropic_errors_use_the_anthropic_shape(fake_model: FakeModelServer) -> None:
    status, payload = post(fake_model, "/v1/messages?beta=true", None, raw=b"")
    assert status == 400
    assert json.loads(payload)["type"] == "error"


def test_text_turn_streams_in_deltas_then_exhausts(fake_model: FakeModelServer) -> None:
    load(fake_model, {"text": "one two three four five"})
    status, payload = post(fake_model, "/v1/chat/completions", chat_body())
    assert status == 200
    events = sse(payload)
    pieces = [e["choices"][0]["delta"].get("content") for e in events[1:-3]]
    assert len(pieces) > 1 and "".join(pieces) == "one two three four five"
    assert events[-3]["choices"][0]["finish_reason"] == "stop"
    assert events[-2]["usage"]["total_tokens"] == 18 and events[-1] == "[DONE]"
    # the script ran out: an explicit error turn, not a hang
    status, payload = post(fake_model, "/v1/chat/completions", chat_body())
    text = "".join(e["choices"][0]["delta"].get("content", "") for e in sse(payload)[:-2])
    assert (status, text) == (200, EXHAUSTED_TEXT)
    assert [e["kind"] for e in log(fake_model)] == ["turn", "exhausted"]


def test_side_requests_do_not_consume_the_script(fake_model: FakeModelServer) -> None:
    load(fake_model, {"text": "real answer"}, title="A title")
    side = chat_body()
    side["tools"] = []
    side["messages"] = [{"role": "system", "content": "You are a title generator."}]
    _, payload = post(fake_model, "/v1/chat/completions", side)
    assert "A title" in json.dumps(sse(payload))
    _, payload = post(fake_model, "/v1/chat/completions", chat_body())
    assert "real answer" in json.dumps(sse(payload)).replace('", "', "")
    assert [e["kind"] for e in log(fake_model)] == ["side", "turn"]


def test_error_turn_fails_and_retries_of_it_fail_too(fake_model: FakeModelServer) -> None:
    load(fake_model, {"error": {"status": 500, "message": "boom"}}, {"text": "after"})
    body = chat_body()
    assert post(fake_model, "/v1/chat/completions", body)[0] == 500
    status, payload = post(fake_model, "/v1/chat/completions", body)  # the CLI's retry
    assert (status, json.loads(payload)["error"]["message"]) == (500, "boom")
    body["messages"].append({"role": "user", "content": "try again"})
    assert post(fake_model, "/v1/chat/completions", body)[0] == 200
    assert [e["kind"] for e in log(fake_model)] == ["error", "error", "turn"]


def test_api_keys_are_redacted(fake_model: FakeModelServer) -> None:
    load(fake_model, {"text": "x"})
    post(
        fake_model,
        "/v1/chat/completions",
        chat_body(),
        headers={"Authorization": "Bearer sk-secret", "x-api-key": "sk-secret"},
    )
    assert "sk-secret" not in fake_model.request_log.read_text()
    assert log(fake_model)[-1]["headers"]["authorization"] == "REDACTED"


def test_shell_maps_to_codex_exec_command_on_responses(fake_model: FakeModelServer) -> None:
    load(fake_model, {"shell": "echo hi > a.txt", "reasoning": "why"})
    body = {"stream": True, "tools": [EXEC], "input": [{"role": "user", "content": "x"}]}
    status, payload = post(fake_model, "/v1/responses", body)
    events = sse(payload)
    assert status == 200
    assert events[0]["type"] == "response.created"
    assert events[-1]["type"] == "response.completed"
    done = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    assert [item["type"] for item in done] == ["reasoning", "function_call"]
    call = done[1]
    assert call["name"] == "exec_command"
    assert json.loads(call["arguments"]) == {"cmd": "echo hi > a.txt"}


def test_shell_maps_to_opencode_bash_with_its_required_fields(
    fake_model: FakeModelServer,
) -> None:
    load(fake_model, {"shell": "ls"})
    _, payload = post(fake_model, "/v1/chat/completions", chat_body())
    deltas = [e["choices"][0]["delta"] for e in sse(payload)[:-2] if e["choices"]]
    calls = [d["tool_calls"][0] for d in deltas if "tool_calls" in d]
    assert calls[0]["function"]["name"] == "bash"
    assert json.loads(calls[1]["function"]["arguments"]) == {
        "command": "ls",
        "description": "Run ls",
    }


def test_shell_maps_to_claude_bash_on_messages(fake_model: FakeModelServer) -> None:
    load(fake_model, {"shell": "pwd", "reasoning": "think"})
    body = {
        "stream": True,
        "model": "m",
        "tools": [CLAUDE_BASH],
        "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
    }
    _, payload = post(fake_model, "/v1/messages?beta=true", body)
    events = sse(payload)
    starts = [e["content_block"]["type"] for e in events if e["type"] == "content_block_start"]
    assert starts == ["thinking", "tool_use"]
    partial = [
        e["delta"]["partial_json"]
        for e in events
        if e["type"] == "content_block_delta" and e["delta"]["type"] == "input_json_delta"
    ]
    assert json.loads(partial[0]) == {"command": "pwd"}
    assert events[-2]["delta"]["stop_reason"] == "tool_use"


def test_a_role_with_no_matching_tool_answers_with_an_explanation(
    fake_model: FakeModelServer,
) -> None:
    load(fake_model, {"plan": [{"content": "a"}]})
    _, payload = post(fake_model, "/v1/chat/completions", chat_body())
    text = "".join(e["choices"][0]["delta"].get("content", "") for e in sse(payload)[:-2])
    assert text == "fake model: no plan tool offered (tools: bash)"


def test_count_tokens_and_models(fake_model: FakeModelServer) -> None:
    status, payload = post(fake_model, "/v1/messages/count_tokens", {"messages": []})
    assert status == 200 and json.loads(payload)["input_tokens"] >= 1
    connection = http.client.HTTPConnection("127.0.0.1", fake_model.port, timeout=10)
    connection.request("GET", "/v1/models")
    response = connection.getresponse()
    assert json.loads(response.read())["data"][0]["id"] == "fake-model"
    connection.close()


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ({"turns": "x"}, "needs a `turns` list"),
        ({"turns": [{"text": "a", "shell": "b", "plan": []}]}, "exactly one action"),
        ({"turns": [{"shell": "a", "edit": {"path": "p"}}]}, "exactly one action"),
        ({"turns": [{"speak": "a"}]}, "unknown turn keys"),
        ({"turns": [{"plan": [{"content": "a", "status": "done"}]}]}, "plan status"),
        ({"turns": [{"write": {"path": "a"}}]}, "write needs"),
    ],
)
def test_bad_scenarios_are_refused_with_the_reason(raw: dict[str, Any], problem: str) -> None:
    with pytest.raises(ScenarioError, match=problem):
        scenario_from_dict(raw, "bad.yaml")


def test_every_shipped_scenario_loads() -> None:
    folder = resources.files("hangar.testing") / "scenarios"
    names = [
        entry.name.removesuffix(".yaml")
        for entry in folder.iterdir()
        if entry.name.endswith(".yaml")
    ]
    assert {"hello", "shell-roundtrip", "plan", "demo-failing-turn"} <= set(names)
    for name in names:
        assert builtin_scenario(name).turns, name


def test_unstreamed_chat_completion_and_restarted_ids(fake_model: FakeModelServer) -> None:
    """A Chat Completions request without ``stream`` (Grok CLI's headless mode) gets one
    ``chat.completion``; reloading with ``restart_ids`` replays the same tool-call ids."""
    turns = ({"shell": "echo hi"}, {"text": "Done."})
    seen = []
    for _ in range(2):
        fake_model.load(scenario_from_dict({"name": "t", "turns": list(turns)}), restart_ids=True)
        body = {**chat_body(), "stream": False}
        status, payload = post(fake_model, "/v1/chat/completions", body)
        assert status == 200
        first = json.loads(payload)
        assert first["object"] == "chat.completion"
        call = first["choices"][0]["message"]["tool_calls"][0]
        assert json.loads(call["function"]["arguments"])["command"] == "echo hi"
        assert first["choices"][0]["finish_reason"] == "tool_calls"
        status, payload = post(fake_model, "/v1/chat/completions", {**body, "stream": None})
        second = json.loads(payload)
        assert second["choices"][0]["message"]["content"] == "Done."
        assert second["usage"]["total_tokens"] > 0
        seen.append((call["id"], first["id"], second["id"]))
    assert seen[0] == seen[1]
    fake_model.load(scenario_from_dict({"name": "t", "turns": list(turns)}))
    status, payload = post(fake_model, "/v1/chat/completions", {**chat_body(), "stream": False})
    assert json.loads(payload)["choices"][0]["message"]["tool_calls"][0]["id"] != seen[0][0]


def test_a_stalled_turn_is_never_answered_and_a_delayed_one_pauses_mid_stream(
    fake_model: Any,
) -> None:
    """``stall`` holds the request until the client gives up; ``delay`` pauses half-way."""
    import socket
    import time as clock

    fake_model.load(
        scenario_from_dict({"turns": [{"stall": True}, {"text": "a b c d e f", "delay": 1}]})
    )
    body = json.dumps(
        {
            "model": "m",
            "stream": True,
            "input": [{"role": "user", "content": "hi"}],
            "tools": [{"type": "function", "name": "exec_command", "parameters": {}}],
        }
    )
    stalled = http.client.HTTPConnection("127.0.0.1", fake_model.port, timeout=1.5)
    stalled.request(
        "POST", "/v1/responses", body=body, headers={"Content-Type": "application/json"}
    )
    with pytest.raises((TimeoutError, socket.timeout)):
        stalled.getresponse()
    stalled.close()
    started = clock.monotonic()
    delayed = http.client.HTTPConnection("127.0.0.1", fake_model.port, timeout=10)
    delayed.request(
        "POST", "/v1/responses", body=body, headers={"Content-Type": "application/json"}
    )
    text = delayed.getresponse().read().decode()
    assert clock.monotonic() - started >= 1.0
    assert text.count("response.output_text.delta") >= 3 and "response.completed" in text


def test_gemini_routes_stream_the_shell_call_answer_json_and_errors(
    fake_model: FakeModelServer,
) -> None:
    """The Gemini API as Gemini CLI speaks it: a shell turn is one `functionCall` part to the
    offered `run_shell_command` (schema from `parametersJsonSchema`), the last chunk carries
    `finishReason` and usage; `generateContent` answers one JSON; an error has Google's
    shape; the API key header is redacted."""
    schema = {"type": "object", "properties": {"command": {"type": "string"}}}
    shell = {
        "name": "run_shell_command",
        "parametersJsonSchema": {**schema, "required": ["command"]},
    }
    body = {"contents": [{"role": "user", "parts": [{"text": "RUN: ls"}]}],
            "tools": [{"functionDeclarations": [shell]}]}  # fmt: skip
    load(fake_model, {"shell": "ls"}, {"text": "Listed the files."}, {"error": {"status": 429,
         "message": "slow down"}})  # fmt: skip
    path = "/v1beta/models/fake-model:streamGenerateContent?alt=sse"
    status, payload = post(fake_model, path, body, headers={"x-goog-api-key": "secret-key"})
    chunks = sse(payload)
    assert status == 200
    (call,) = [p["functionCall"] for c in chunks for p in c["candidates"][0]["content"]["parts"]]
    assert (call["name"], call["args"]) == ("run_shell_command", {"command": "ls"})
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    assert chunks[-1]["usageMetadata"]["promptTokenCount"] == 11
    status, payload = post(fake_model, "/v1beta/models/fake-model:generateContent", body)
    answer = json.loads(payload)
    assert status == 200
    assert answer["candidates"][0]["content"]["parts"] == [{"text": "Listed the files."}]
    status, payload = post(fake_model, path, body)
    assert (status, json.loads(payload)["error"]["status"]) == (429, "RESOURCE_EXHAUSTED")
    entries = log(fake_model)
    assert [e["api"] for e in entries] == ["gemini-stream", "gemini", "gemini-stream"]
    assert entries[0]["tools"] == ["run_shell_command"]
    assert "secret-key" not in fake_model.request_log.read_text()
