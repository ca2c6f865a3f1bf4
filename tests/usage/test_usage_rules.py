"""The counting rules on hand-written records in the agents' real formats, with hand counts."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hangar.agents.launch import NoLauncher
from hangar.executor.prices import load_prices
from hangar.executor.service import Executor
from hangar.model import TokenUse


def _write(path: Path, lines: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _counts(total: int, last: int, *, cached: int = 0, reasoning: int = 0) -> dict[str, object]:
    def usage(n: int) -> dict[str, int]:
        return {
            "input_tokens": n - 4,
            "cached_input_tokens": cached,
            "output_tokens": 4,
            "reasoning_output_tokens": reasoning,
            "total_tokens": n,
        }

    return {"total_token_usage": usage(total), "last_token_usage": usage(last)}


def _token_count(at: str, total: int, last: int, **extra: int) -> dict[str, object]:
    return {
        "timestamp": at,
        "type": "event_msg",
        "payload": {"type": "token_count", "info": _counts(total, last, **extra)},
    }


def _meta(thread: str, at: str, forked_from: str | None = None) -> dict[str, object]:
    payload: dict[str, object] = {"id": thread, "timestamp": at, "cwd": "/srv/p"}
    if forked_from:
        payload["forked_from_id"] = forked_from
    return {"timestamp": at, "type": "session_meta", "payload": payload}


def _turn(at: str, model: str) -> dict[str, object]:
    return {"timestamp": at, "type": "turn_context", "payload": {"model": model, "cwd": "/srv/p"}}


PARENT = "0199aaaa-0000-7000-8000-000000000001"
FORK = "0199aaaa-0000-7000-8000-000000000002"


def _older_codex_home(home: Path) -> None:
    """A parent thread and a fork in the older format (no ``token_usage_record``): the fork's
    file copies its parent's lines, then adds its own. Hand count: parent 100 + 50 (the repeat
    of the 150 total for a rate-limit update is not a call), fork 30 + 20."""
    day = home / ".codex" / "sessions" / "2026" / "05" / "11"
    parent = [
        _meta(PARENT, "2026-05-11T10:00:00.000Z"),
        _turn("2026-05-11T10:00:01.000Z", "gpt-5-codex"),
        _token_count("2026-05-11T10:00:02.000Z", 100, 100, cached=40, reasoning=2),
        _token_count("2026-05-11T10:00:03.000Z", 150, 50),
        _token_count("2026-05-11T10:00:04.000Z", 150, 50),
    ]
    _write(day / f"rollout-2026-05-11T10-00-00-{PARENT}.jsonl", parent)
    fork = [
        _meta(FORK, "2026-05-11T11:00:00.000Z", forked_from=PARENT),
        *parent[1:],
        _turn("2026-05-11T11:00:01.000Z", "gpt-5-codex"),
        _token_count("2026-05-11T11:00:02.000Z", 180, 30),
        _token_count("2026-05-11T11:00:03.000Z", 200, 20),
    ]
    _write(day / f"rollout-2026-05-11T11-00-00-{FORK}.jsonl", fork)


def _claude_message(mid: str, at: str, output: int, block: str) -> dict[str, object]:
    return {
        "type": "assistant",
        "uuid": f"{mid}-{block}-{output}",
        "sessionId": "11111111-2222-4333-8444-555555555555",
        "cwd": "/srv/p",
        "timestamp": at,
        "message": {
            "id": mid,
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": block, "text": "x"}],
            "usage": {
                "input_tokens": 10,
                "cache_read_input_tokens": 1000,
                "cache_creation_input_tokens": 200,
                "output_tokens": output,
            },
        },
    }


def _claude_home(home: Path) -> None:
    """One message streamed over three lines (output 1 → 40 → 90) and one of one line.
    Hand count: 10 + 1000 + 200 + 90, and 10 + 1000 + 200 + 5."""
    folder = home / ".claude" / "projects" / "-srv-p"
    user = {
        "type": "user",
        "uuid": "u1",
        "sessionId": "11111111-2222-4333-8444-555555555555",
        "cwd": "/srv/p",
        "timestamp": "2026-05-12T09:00:00.000Z",
        "message": {"role": "user", "content": "hi"},
    }
    _write(
        folder / "11111111-2222-4333-8444-555555555555.jsonl",
        [
            user,
            _claude_message("msg_a", "2026-05-12T09:00:01.000Z", 1, "thinking"),
            _claude_message("msg_a", "2026-05-12T09:00:02.000Z", 40, "text"),
            _claude_message("msg_a", "2026-05-12T09:00:03.000Z", 90, "tool_use"),
            _claude_message("msg_b", "2026-05-12T09:00:04.000Z", 5, "text"),
        ],
    )


@pytest.fixture
def executor(isolated_home: Path) -> Executor:
    _older_codex_home(isolated_home)
    _claude_home(isolated_home)
    ex = Executor.open(launcher=NoLauncher())
    yield ex  # type: ignore[misc]
    ex.close()


def test_older_codex_fork_copies_count_once_and_repeats_are_not_calls(executor: Executor) -> None:
    report = executor.handle("runtime.usage.summary", {"by": "task"})
    codex = {r["localTaskId"]: r for r in report["rows"] if r["runtime"] == "codex"}
    totals = sorted(r["totalTokens"] for r in codex.values())
    assert totals == [50, 150]
    parent = next(r for r in codex.values() if r["totalTokens"] == 150)
    assert parent["calls"] == 2
    # cached input is its own column, not input: 100 - 40 uncached + 40 cache read
    assert parent["tokens"]["cacheRead"] == 40
    assert parent["tokens"]["input"] == 96 + 46 - 40
    assert parent["tokens"]["reasoning"] == 2 and parent["tokens"]["output"] == 8


def test_a_streamed_claude_message_counts_at_its_largest(executor: Executor) -> None:
    report = executor.handle("runtime.usage.summary", {"by": "model"})
    (claude,) = [r for r in report["rows"] if r["key"] == "claude-sonnet-4-5"]
    assert claude["calls"] == 2
    assert claude["totalTokens"] == (10 + 1000 + 200 + 90) + (10 + 1000 + 200 + 5)
    assert claude["tokens"] == {"input": 20, "cacheRead": 2000, "cacheWrite": 400, "output": 95}


def test_costs_come_from_the_local_table_and_its_override(
    executor: Executor, hangar_home: Path
) -> None:
    report = executor.handle("runtime.usage.summary", {"by": "model"})
    claude = next(r for r in report["rows"] if r["key"] == "claude-sonnet-4-5")
    # shipped table: 3 $/M input, 0.3 cache read, 3.75 cache write, 15 output
    expected = (20 * 3 + 2000 * 0.3 + 400 * 3.75 + 95 * 15) / 1_000_000
    assert claude["costUsd"] == pytest.approx(expected)
    assert report["pricesFile"] is None
    (hangar_home / "prices.toml").write_text(
        '[models."claude-sonnet-4-5"]\ninput = 1.0\noutput = 2.0\ncache_read = 0\ncache_write = 0\n'
    )
    again = executor.handle("runtime.usage.summary", {"by": "model"})
    claude = next(r for r in again["rows"] if r["key"] == "claude-sonnet-4-5")
    assert claude["costUsd"] == pytest.approx((20 * 1 + 95 * 2) / 1_000_000)
    assert again["pricesFile"] == str(hangar_home / "prices.toml")


def test_a_model_without_a_price_is_unpriced_not_guessed(hangar_home: Path) -> None:
    table = load_prices(hangar_home)
    assert table.price("gpt-5-codex") is not None
    assert table.price("gpt-5-mini-2025") == table.price("gpt-5-mini")  # longest prefix wins
    assert table.price("fake-model") is None
    assert table.price(None) is None
    tokens = TokenUse(input=1_000_000, output=1_000_000)
    price = table.price("gpt-5")
    assert price is not None and price.cost(tokens) == pytest.approx(11.25)


def test_days_and_filters(executor: Executor) -> None:
    days = executor.handle("runtime.usage.summary", {"by": "day"})
    assert [r["key"] for r in days["rows"]] == ["2026-05-12", "2026-05-11"]
    only = executor.handle("runtime.usage.summary", {"by": "day", "since": "2026-05-12"})
    assert [r["key"] for r in only["rows"]] == ["2026-05-12"]
    assert only["total"]["totalTokens"] == 2515


def test_a_fifo_named_like_a_session_is_skipped(isolated_home: Path) -> None:
    folder = isolated_home / ".claude" / "projects" / "-srv-q"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "22222222-2222-4333-8444-555555555555.jsonl")
    from hangar.agents.usage_scan import read_regular

    assert read_regular(folder / "22222222-2222-4333-8444-555555555555.jsonl") is None
