"""``aroundClientUserMessageId``: the transcript page around one user message, found by the id
the agent recorded for it, over the real in-process executor and a Codex rollout file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from hangar.executor.service import Executor

from .codex_sessions import CodexSession

THREAD = "0ddd0000-1111-7222-8333-000000000004"


def _session(home: Path, first_turn: int, last_turn: int) -> CodexSession:
    """A rollout holding turns ``first_turn..last_turn`` (ids as a full history would have)."""
    session = CodexSession(home, THREAD, "/srv/app", turns=first_turn - 1)
    session.path.unlink(missing_ok=True)
    session.meta()
    for number in range(first_turn, last_turn + 1):
        session.turn(f"Question {number}", f"Answer {number}.")
    return session


def _client_id(number: int) -> str:
    return f"{THREAD[:8]}-turn-{number}-user"  # the UserMessage item id Codex wrote


def _address(client: TestClient) -> dict[str, str]:
    work = client.get("/api/runtime-work").json()
    tasks = [t for p in work["projects"] for t in p["tasks"]] + work["conversations"]
    task = next(t for t in tasks if t["runtimeHandle"].get("threadId") == THREAD)
    return {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]}


def _around(client: TestClient, address: dict[str, str], client_id: str) -> Any:
    body = {**address, "limit": 20, "aroundClientUserMessageId": client_id}
    return client.post("/api/runtime-work/transcript", json=body)


def test_the_page_around_a_user_message_follows_it_when_indexes_shift(
    client: TestClient, isolated_home: Path
) -> None:
    """RW-229: the message is found by its clientUserMessageId, not a position: an old
    message outside the newest page, and the same message after the transcript was parsed
    anew with fewer messages before it (its index moved; the id still finds it)."""
    _session(isolated_home, 1, 40)
    address = _address(client)
    response = _around(client, address, _client_id(3))
    assert response.status_code == 200, response.text
    page = response.json()
    assert page["totalMessages"] == 80
    assert page["aroundIndex"] == 4
    found = {m["index"]: m for m in page["messages"]}
    assert found[4]["content"] == "Question 3"
    assert found[4]["clientUserMessageId"] == _client_id(3)
    assert min(found) == 0 and max(found) < 20  # the page around it, not the newest one
    assert page["hasMore"] is False

    _session(isolated_home, 3, 40)  # the first two turns no longer in the file
    moved = _around(client, {**address}, _client_id(3)).json()
    assert moved["totalMessages"] == 76
    assert moved["aroundIndex"] == 0
    first = next(m for m in moved["messages"] if m["index"] == 0)
    assert first["content"] == "Question 3"
    later = _around(client, address, _client_id(30)).json()
    assert later["aroundIndex"] == 54
    assert {m["index"]: m["content"] for m in later["messages"]}[54] == "Question 30"


def test_an_unknown_message_id_is_a_clear_404_and_positions_exclude_it(
    client: TestClient, isolated_home: Path
) -> None:
    _session(isolated_home, 1, 3)
    address = _address(client)
    missing = _around(client, address, "no-such-message")
    assert missing.status_code == 404
    assert "no user message 'no-such-message'" in missing.json()["error"]["message"]
    both = client.post(
        "/api/runtime-work/transcript",
        json={**address, "beforeCursor": "aTo0", "aroundClientUserMessageId": _client_id(1)},
    )
    assert both.status_code == 400, both.text
    assert "exclude each other" in both.text
    assistant_id = client.post("/api/runtime-work/transcript", json=address).json()["messages"]
    assert _around(client, address, assistant_id[-1]["id"]).status_code == 404  # users only


def test_a_message_in_the_last_turns_is_found_without_reading_the_whole_file(
    isolated_home: Path,
) -> None:
    """A task read tail-first finds a recent message in its last turns; an older one reads
    the whole file, with the same indexes a full read gives."""
    _session(isolated_home, 1, 30)
    executor = Executor.open()
    task_id = executor.handle("runtime.tasks.list", {})["tasks"][0]["localTaskId"]
    assert executor.index_pending() == 1
    ask = {"localTaskId": task_id, "limit": 6}
    recent = executor.handle(
        "runtime.tasks.transcript", {**ask, "aroundClientUserMessageId": _client_id(29)}
    )
    assert recent["aroundIndex"] == 56
    assert [m["index"] for m in recent["messages"]] == list(range(54, 60))
    assert executor.engine.stats.full_parses == 0
    old = executor.handle(
        "runtime.tasks.transcript", {**ask, "aroundClientUserMessageId": _client_id(2)}
    )
    assert executor.engine.stats.full_parses == 1
    assert old["aroundIndex"] == 2
    assert [m["content"] for m in old["messages"]][:4] == [
        "Question 1", "Answer 1.", "Question 2", "Answer 2."
    ]  # fmt: skip
