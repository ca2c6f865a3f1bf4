"""The app-server JSON-RPC client against a scripted peer process (a real subprocess)."""

from __future__ import annotations

import sys
import textwrap

import pytest

from hangar.agents.codex.app_server import (
    AppServerError,
    AppServerGone,
    AppServerTimeout,
    CodexAppServer,
)

PEER = textwrap.dedent(
    """
    import json, sys
    def send(obj):
        sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
    for line in sys.stdin:
        msg = json.loads(line)
        method, rid = msg.get("method"), msg.get("id")
        if rid is None:
            continue
        if method == "initialize":
            send({"method": "remoteControl/status/changed", "params": {"status": "disabled"}})
            sys.stdout.write("not json at all\\n"); sys.stdout.flush()
            send({"id": rid, "result": {"userAgent": "peer/0.0.0"}})
        elif method == "thread/archive":
            send({"id": rid, "error": {"code": -32600,
                  "message": "no rollout found for thread id " + msg["params"]["threadId"]}})
        elif method == "thread/delete":
            send({"id": rid, "error": {"code": -32600,
                  "message": "Invalid request: unknown variant `thread/delete`"}})
        elif method == "ask/back":
            send({"id": 99, "method": "item/commandExecution/requestApproval", "params": {}})
            reply = json.loads(sys.stdin.readline())
            send({"id": rid, "result": {"declined": reply.get("error", {}).get("code")}})
        elif method == "slow":
            pass
        elif method == "exit":
            sys.exit(3)
        else:
            send({"method": "thread/archived", "params": {}})
            send({"id": rid, "result": {"echo": msg.get("params")}})
    """
)


@pytest.fixture
def server() -> CodexAppServer:
    client = CodexAppServer([sys.executable, "-c", PEER])
    result = client.start(timeout=30)
    assert result == {"userAgent": "peer/0.0.0"}
    yield client
    client.close()


def test_notifications_and_garbage_before_the_answer_are_kept_aside(
    server: CodexAppServer,
) -> None:
    assert server.notifications[0]["method"] == "remoteControl/status/changed"
    assert server.garbage_lines == 1
    assert server.request("thread/name/set", {"threadId": "t", "name": "n"}) == {
        "echo": {"threadId": "t", "name": "n"}
    }
    assert server.notifications[-1]["method"] == "thread/archived"


def test_errors_are_typed(server: CodexAppServer) -> None:
    """RW-169: the stale-thread error is recognised by its exact text."""
    with pytest.raises(AppServerError) as stale:
        server.request("thread/archive", {"threadId": "abc"})
    assert stale.value.is_missing_rollout and not stale.value.is_unknown_method
    with pytest.raises(AppServerError) as unknown:
        server.request("thread/delete", {"threadId": "abc"})
    assert unknown.value.is_unknown_method


def test_server_requests_are_declined(server: CodexAppServer) -> None:
    assert server.request("ask/back") == {"declined": -32601}


def test_timeout_then_the_next_request_still_matches_by_id(server: CodexAppServer) -> None:
    with pytest.raises(AppServerTimeout):
        server.request("slow", timeout=0.3)
    assert server.request("echo", {"x": 1}) == {"echo": {"x": 1}}


def test_a_server_that_exits_is_reported_and_close_reaps_it(server: CodexAppServer) -> None:
    with pytest.raises(AppServerGone):
        server.request("exit", timeout=30)
    with pytest.raises(AppServerGone):
        server.request("echo")
    server.close()
    assert server.process is not None and server.process.returncode == 3


def test_a_missing_executable_is_a_clear_error() -> None:
    with pytest.raises(AppServerGone):
        CodexAppServer(["/nonexistent/codex", "app-server"]).start()
