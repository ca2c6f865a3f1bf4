"""Issue 12, items 1, 4 and 6: run messages cannot stall, crash or bloat the hub.

Each test is named after the item it guards and fails on the code before its fix.
"""

from __future__ import annotations

import ast
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import hangar.hub.store
from hangar.hub.api.limits import MAX_BODY_BYTES, MAX_ID_CHARS
from hangar.hub.store.local_runs import PAGE_CHARS
from hangar.model.run_messages import MAX_INPUT_DEPTH, MAX_TEXT_CHARS, RunMessage
from hangar.redaction import MASK, redact_text

from .test_hub_local_runs import new_issue, new_run, post

KB = 1024

ADVERSARIAL = {
    "one long word": "TOKEN" * (256 * KB // 5),
    "key, separator, repeated": "TOKEN=" * (256 * KB // 6),
    "database URL without @": "postgres://a:" * (256 * KB // 13),
    "key block without end": "-----BEGIN PRIVATE KEY-----" + "-" * (256 * KB),
    "bearer, repeated": "Bearer " * (256 * KB // 7),
    "home paths, repeated": "/home/" * (256 * KB // 6),
}


def finishes(work: Any, seconds: float) -> bool:
    """Whether ``work()`` returns within ``seconds`` (a hang detector, not a timing: the
    fixed code needs milliseconds, the old patterns took minutes on these inputs)."""
    done = threading.Event()
    thread = threading.Thread(target=lambda: (work(), done.set()), daemon=True)
    thread.start()
    return done.wait(seconds)


@pytest.mark.parametrize("shape", list(ADVERSARIAL))
def test_item_1_redaction_is_linear_on_adversarial_text(shape: str) -> None:
    """Item 1: 256 KB shaped to make backtracking patterns blow up is redacted at once (the
    old patterns: 16 s for 64 KB of ``TOKEN``, quadratic beyond)."""
    text = ADVERSARIAL[shape]
    result: list[str] = []
    assert finishes(lambda: result.append(redact_text(text)), seconds=20), shape
    assert redact_text(result[0]) == result[0]


def test_item_1_secrets_are_still_found_next_to_adversarial_text() -> None:
    """Item 1: the linear rules still mask what the old ones did, also after a long word."""
    noise = "TOKEN" * 10_000
    text = f"{noise} OPENAI_API_KEY=abcd1234efgh {noise} postgres://app:hunter2@db/x"
    redacted = redact_text(text)
    assert "abcd1234efgh" not in redacted and "hunter2" not in redacted
    assert "OPENAI_API_KEY=****" in redacted and "postgres://app:****@db/x" in redacted


def test_item_1_the_hub_store_never_redacts() -> None:
    """Item 1: no module of the hub's store (where the write lock is taken) imports the
    redaction: messages arrive redacted, so redaction never runs under the lock."""
    store = Path(hangar.hub.store.__file__).parent
    for path in store.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {
            node.module or ""
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
        } | {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
             for alias in node.names}  # fmt: skip
        assert not any("redact" in name for name in names), path


def test_item_1_the_hub_redacts_what_a_client_posts(client: TestClient) -> None:
    """Item 1: the hub (not only the reporter) masks secrets, in every field."""
    run = new_run(client, new_issue(client), workDir="/home/alice/project")
    secret = "glpat-" + "x" * 24
    stored = post(
        client, run["id"], type="tool_use", source="s", sourceKey="k", content=f"use {secret}",
        input={"command": f"curl -H 'Authorization: Bearer {secret}'", "password": "hunter22"},
        output=f"TOKEN={secret}",
    ).json()  # fmt: skip
    assert secret not in json.dumps(stored) and "hunter22" not in json.dumps(stored)
    assert stored["input"]["password"] == MASK
    comments = client.get(f"/api/issues/{run['issueKey']}/comments").json()["comments"]
    assert "/home/****/project" in comments[0]["body"]


def nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


@pytest.mark.parametrize("levels", [MAX_INPUT_DEPTH + 1, 300, 600, 5000])
def test_item_4_deeply_nested_input_is_refused_and_pages_still_load(
    client: TestClient, levels: int
) -> None:
    """Item 4: an ``input`` nested beyond the limit is a 422 naming ``input`` (it used to be
    stored, then every page of the run answered 500; at 600 levels the POST itself did)."""
    run = new_run(client, new_issue(client))
    deep = '{"a": ' * (levels - 1) + '{"leaf": 1}' + "}" * (levels - 1)
    body = '{"type": "tool_use", "sourceKey": "deep", "input": ' + deep + "}"
    answer = client.post(
        f"/api/local-runs/{run['id']}/messages",
        content=body,
        headers={"content-type": "application/json"},
    )
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["details"]["problems"][0]["field"] == "input"
    ok = post(client, run["id"], type="tool_use", source="s", sourceKey="ok",
              input=nested(MAX_INPUT_DEPTH))  # fmt: skip
    assert ok.status_code == 201
    page = client.get(f"/api/local-runs/{run['id']}/messages")
    assert page.status_code == 200 and len(page.json()["messages"]) == 1


def test_item_4_long_fields_keep_head_and_tail(client: TestClient) -> None:
    """Item 4: a 1 MB ``content`` and a 2 MB ``input`` are stored as head + tail with
    ``truncated`` (they used to be stored and echoed whole)."""
    run = new_run(client, new_issue(client))
    content = "HEAD" + "x" * (1024 * KB) + "TAIL"
    big_input = {"turnKey": "t1", "patch": "START" + "y" * (2048 * KB) + "END"}
    answer = post(client, run["id"], type="tool_use", source="s", sourceKey="big",
                  content=content, input=big_input)  # fmt: skip
    assert answer.status_code == 201, answer.text[:300]
    stored = answer.json()
    assert stored["truncated"] is True
    assert stored["content"].startswith("HEADx") and stored["content"].endswith("xTAIL")
    assert len(stored["content"]) < MAX_TEXT_CHARS + 100
    assert stored["input"]["turnKey"] == "t1"  # the outbox's keys survive
    assert stored["input"]["truncatedJson"].startswith('{"turnKey"')
    assert len(json.dumps(stored)) < 4 * MAX_TEXT_CHARS
    listed = client.get(f"/api/local-runs/{run['id']}/messages").json()["messages"]
    assert listed == [stored]
    small = post(client, run["id"], type="text", source="s", sourceKey="small", content="hi")
    assert "truncated" not in small.json()


def test_item_4_a_page_stays_bounded(client: TestClient) -> None:
    """Item 4: ``limit`` messages of the largest size make a page of bounded size, read on
    with ``nextSince`` (a 50 MB message used to come back whole in a limit=5 page)."""
    run = new_run(client, new_issue(client))
    for n in range(80):
        post(client, run["id"], type="tool_result", source="s", sourceKey=f"r{n}",
             output="z" * MAX_TEXT_CHARS)  # fmt: skip
    first = client.get(f"/api/local-runs/{run['id']}/messages?limit=500").json()
    assert 1 <= len(first["messages"]) < 80
    assert sum(len(m["output"]) for m in first["messages"]) <= PAGE_CHARS + MAX_TEXT_CHARS
    rest = client.get(f"/api/local-runs/{run['id']}/messages?since={first['nextSince']}")
    assert len(first["messages"]) + len(rest.json()["messages"]) == 80


def test_item_4_a_body_over_the_limit_is_413(client: TestClient) -> None:
    """Item 4: a body larger than the limit is refused with 413 in the one error shape
    (streamed bodies are counted while read: see test_serve_limits)."""
    run = new_run(client, new_issue(client))
    body = b'{"type": "text", "sourceKey": "k", "content": "' + b"a" * MAX_BODY_BYTES + b'"}'
    answer = client.post(
        f"/api/local-runs/{run['id']}/messages",
        content=body,
        headers={"content-type": "application/json"},
    )
    assert answer.status_code == 413 and answer.json()["error"]["code"] == "too_large"


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/api/runtime-work/transcript", {"deviceId": "d" * 10_000, "localTaskId": "t"}),
        ("POST", "/api/runtime-work/transcript", {"deviceId": "missing", "localTaskId": "t"}),
        ("GET", "/api/local-runs/" + "r" * 10_000, None),
        ("GET", "/api/local-runs/" + "r" * MAX_ID_CHARS, None),
        ("GET", "/api/issues/" + "K" * MAX_ID_CHARS, None),
        ("POST", "/api/local-runs/x/messages", {"type": "t" * 100_000, "sourceKey": "k"}),
    ],
)
def test_item_4_errors_never_echo_unbounded_input(
    client: TestClient, method: str, path: str, body: Any
) -> None:
    """Item 4: a huge id is refused (422) or reported missing (404) in a short answer (a
    10 MB id used to come back twice in the 404)."""
    answer = client.request(method, path, json=body)
    assert answer.status_code in (404, 422), answer.text[:200]
    assert len(answer.content) < 2000, answer.text[:200]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("", {"exitCode": 2**70}),
        ("", {"exitCode": -(2**64)}),
        ("", {"activeMs": 2**64}),
        ("/usage", {"usage": [{"provider": "codex", "inputTokens": 2**64}]}),
        ("/usage", {"usage": [{"provider": "codex", "outputTokens": "5"}]}),
    ],
)
def test_item_6_integers_beyond_64_bits_are_422(
    client: TestClient, path: str, body: dict[str, Any]
) -> None:
    """Item 6: out-of-range integers are a 422 naming the field (they were a 500 that also
    dropped the connection); the run is unchanged."""
    run = new_run(client, new_issue(client))
    method = "PUT" if path else "PATCH"
    answer = client.request(method, f"/api/local-runs/{run['id']}{path}", json=body)
    assert answer.status_code == 422, answer.text
    field = answer.json()["error"]["details"]["problems"][0]["field"]
    assert field.split(".")[-1] in {*body, "inputTokens", "outputTokens"}, field
    again = client.get(f"/api/local-runs/{run['id']}").json()
    assert (again["exitCode"], again["activeMs"], again["usage"]) == (None, None, [])
    page = client.get(f"/api/local-runs/{run['id']}/messages?since={2**70}")
    assert page.status_code == 422


def test_item_6_the_largest_counts_are_kept(client: TestClient) -> None:
    """Item 6: the documented maximum (2**63-1) is stored and read back exactly."""
    run = new_run(client, new_issue(client))
    top = 2**63 - 1
    url = f"/api/local-runs/{run['id']}"
    usage = {"usage": [{"provider": "codex", "model": "m", "inputTokens": top}]}
    assert client.put(url + "/usage", json=usage).status_code == 200
    assert client.patch(url, json={"activeMs": top, "exitCode": -1}).status_code == 200
    again = client.get(url).json()
    assert again["usage"][0]["inputTokens"] == top and again["activeMs"] == top


def test_item_4_reporter_sends_what_the_hub_keeps() -> None:
    """Item 4: the reporter bounds a message the way the hub does (nothing it sends is over
    the body limit, and a deep input becomes a preview instead of a refusal)."""
    message = RunMessage(
        type="tool_use", source="s", source_key="k", content="c" * (3 * MAX_BODY_BYTES),
        input=nested(MAX_INPUT_DEPTH + 10),
    )  # fmt: skip
    prepared = message.prepared()
    assert prepared.truncated and "truncatedJson" in prepared.input
    assert len(json.dumps(prepared.to_json())) < MAX_BODY_BYTES // 8
    assert prepared.prepared() == prepared
