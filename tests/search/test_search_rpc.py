"""runtime.tasks.search over real session files (fixtures and generated Claude sessions)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from hangar.errors import UsageError
from hangar.executor import search_index
from hangar.executor.service import Executor

from .conftest import install_codex_fixture
from .sessions import claude_lines, claude_session


def _search(executor: Executor, query: str, **extra: Any) -> list[dict[str, Any]]:
    results = executor.handle("runtime.tasks.search", {"query": query, **extra})["results"]
    assert isinstance(results, list)
    return results


def _message_text(message: dict[str, Any]) -> str:
    parts = [message.get("content") or ""]
    for block in message.get("blocks") or []:
        if block["type"] in ("text", "plan"):
            parts.append(block["text"])
        elif block["type"] == "tool":
            parts.append(f"{block['name']} {block.get('input')}")
    return "\n".join(parts)


def _transcript(executor: Executor, task_id: str) -> list[dict[str, Any]]:
    data = executor.handle("runtime.tasks.transcript", {"localTaskId": task_id, "limit": 1000})
    messages: list[dict[str, Any]] = data["messages"]
    return messages


def _word(text: str) -> str | None:
    words = sorted(set(re.findall(r"\b[a-zA-Z]{7,14}\b", text)), key=lambda w: (-len(w), w))
    return words[0] if words else None


def _command(block: dict[str, Any]) -> str:
    value = block.get("input")
    if isinstance(value, dict):
        value = value.get("cmd") or value.get("command") or ""
    if isinstance(value, list):
        value = " ".join(map(str, value))
    return value if isinstance(value, str) else ""


def _assert_hit(executor: Executor, task_id: str, word: str, archived: bool = False) -> None:
    found = _search(executor, word, limit=100, includeArchived=archived)
    hits = [r for r in found if r["localTaskId"] == task_id]
    assert hits, f"{word!r} not found in {task_id}"
    hit = hits[0]
    messages = _transcript(executor, task_id)
    if hit["role"] == "title":
        assert hit["messageIndex"] is None
        assert word.lower() in hit["title"].lower()
        return
    message = messages[hit["messageIndex"]]
    assert message["index"] == hit["messageIndex"]
    assert message["role"] == hit["role"]
    assert word.lower() in _message_text(message).lower()
    assert f"«{word.lower()}" in hit["snippet"].lower()


def test_fixtures_are_found_by_user_assistant_and_command_words(
    executor: Executor, codex_home: Path, public_fixtures: Path
) -> None:
    """RW-051/052/053: user text, assistant text and tool commands are searchable; the result
    points at the message that holds the match, and its address carries the Codex thread."""
    for rollout in sorted((public_fixtures / "codex" / "codemie-code").glob("rollout-*.jsonl")):
        install_codex_fixture(codex_home, rollout)
    tasks = executor.handle("runtime.tasks.list", {})["tasks"]
    assert len(tasks) == 2
    for task in tasks:
        asked = next(
            word
            for m in _transcript(executor, task["localTaskId"])
            if m["role"] == "user" and (word := _word(m["content"]))
        )
        hit = next(
            r
            for r in _search(executor, asked, limit=100)
            if r["localTaskId"] == task["localTaskId"]
        )
        assert hit["runtimeHandle"] == task["runtimeHandle"] and task["runtimeHandle"]["threadId"]
    checked = {"user": 0, "assistant": 0, "command": 0}
    for task in tasks:
        for message in _transcript(executor, task["localTaskId"]):
            if message["role"] == "user" and (word := _word(message["content"])):
                _assert_hit(executor, task["localTaskId"], word)
                checked["user"] += 1
            for block in message.get("blocks") or []:
                if block["type"] == "text" and (word := _word(block["text"])):
                    _assert_hit(executor, task["localTaskId"], word)
                    checked["assistant"] += 1
                elif block["type"] == "tool" and (word := _word(_command(block))):
                    _assert_hit(executor, task["localTaskId"], word)
                    checked["command"] += 1
    assert all(count > 0 for count in checked.values()), checked


def test_claude_fixture_is_searchable(
    executor: Executor, claude_home: Path, public_fixtures: Path
) -> None:
    folder = public_fixtures / "claude" / "codemie-code"
    target = claude_home / "projects" / "-tmp"
    target.mkdir(parents=True)
    for name in ("session-196820da.jsonl", "session-9eda1058.jsonl", "session-3fe1b6bc.jsonl"):
        (target / name).write_bytes((folder / name).read_bytes())
    tasks = executor.handle("runtime.tasks.list", {})["tasks"]
    assert len(tasks) == 3
    checked = 0
    for task in tasks:
        messages = _transcript(executor, task["localTaskId"])
        words = [w for m in messages if (w := _word(_message_text(m)))]
        for word in words[:6]:
            _assert_hit(executor, task["localTaskId"], word)
            checked += 1
    assert checked >= 6


DEMO_CORPUS = Path(__file__).resolve().parents[2] / "demo" / "corpus"


def test_demo_corpus_is_found_by_user_assistant_and_command_words(
    executor: Executor, isolated_home: Path
) -> None:
    """RW-051/052 over the committed demo corpus (real sessions of the real CLIs)."""
    if not (DEMO_CORPUS / "home").is_dir():
        pytest.skip("demo/corpus not generated in this checkout (make corpus)")
    shutil.copytree(DEMO_CORPUS / "home", isolated_home, dirs_exist_ok=True)
    tasks = executor.handle("runtime.tasks.list", {"includeArchived": True})["tasks"]
    assert tasks
    checked: dict[str, int] = {"user": 0, "assistant": 0, "command": 0}
    for task in tasks:
        for message in _transcript(executor, task["localTaskId"]):
            if message["role"] == "user" and (word := _word(message["content"])):
                _assert_hit(executor, task["localTaskId"], word, archived=True)
                checked["user"] += 1
            for block in message.get("blocks") or []:
                if block["type"] == "text" and (word := _word(block["text"])):
                    _assert_hit(executor, task["localTaskId"], word, archived=True)
                    checked["assistant"] += 1
                elif block["type"] == "tool" and (word := _word(_command(block))):
                    _assert_hit(executor, task["localTaskId"], word, archived=True)
                    checked["command"] += 1
    assert all(count > 0 for count in checked.values()), checked


def _chinese_japanese(claude_home: Path) -> None:
    claude_session(
        claude_home,
        "11111111-1111-4111-8111-111111111111",
        "/projects/demo",
        [
            {"user": "请帮我实现全文搜索功能", "assistant": "好的，我先阅读代码结构。"},
            {"user": "日本語の検索機能をテストしてください", "assistant": "テストを書きました。"},
        ],
    )


def test_chinese_and_japanese_are_found_inside_runs(executor: Executor, claude_home: Path) -> None:
    """CJK text has no spaces; any run of adjacent characters matches (not just whole runs)."""
    _chinese_japanese(claude_home)
    (hit,) = _search(executor, "搜索")
    assert (hit["role"], hit["messageIndex"]) == ("user", 0)
    assert "«搜索»" in hit["snippet"]
    (hit,) = _search(executor, "阅读代码")
    assert (hit["role"], hit["messageIndex"]) == ("assistant", 1)
    assert "«阅读代码»" in hit["snippet"]
    (hit,) = _search(executor, "検索機能")
    assert hit["messageIndex"] == 2
    (hit,) = _search(executor, "テスト")
    assert hit["messageIndex"] in (2, 3)
    assert _search(executor, "搜功") == []  # characters present but not adjacent
    assert _search(executor, "搜索 テスト") == []  # words are ANDed within one message


def test_quotes_phrases_prefixes_and_syntax_characters(
    executor: Executor, claude_home: Path
) -> None:
    claude_session(
        claude_home,
        "22222222-2222-4222-8222-222222222222",
        "/projects/demo",
        [
            {
                "user": 'Please run the "deploy pipeline" (stage:two) now',
                "assistant": "Deployment finished; the pipeline deployed version 2.4.1",
                "command": "kubectl rollout status deploy/web --timeout=60s",
                "output": "deployment successfully rolled out zebrafish",
            }
        ],
    )
    assert len(_search(executor, '"deploy pipeline"')) == 1
    assert _search(executor, '"pipeline deploy"') == []
    assert len(_search(executor, "deplo*")) == 1
    assert len(_search(executor, "stage:two")) == 1
    assert len(_search(executor, "(stage two) -now")) == 1  # syntax searched as text
    assert len(_search(executor, "2.4.1")) == 1
    (hit,) = _search(executor, "kubectl rollout")
    assert hit["role"] == "assistant" and "«kubectl»" in hit["snippet"]
    for bad in ['deploy "pipeline', "", "   ", "()*:^"]:
        with pytest.raises(UsageError):
            _search(executor, bad)


def test_tool_output_only_when_asked(executor: Executor, claude_home: Path) -> None:
    claude_session(
        claude_home,
        "33333333-3333-4333-8333-333333333333",
        "/projects/demo",
        [{"user": "check it", "assistant": "done", "command": "ls", "output": "zebrafish.txt"}],
    )
    assert _search(executor, "zebrafish") == []
    (hit,) = _search(executor, "zebrafish", includeToolOutput=True)
    assert hit["role"] == "assistant" and "«zebrafish»" in hit["snippet"]


def test_order_limit_archive_and_project_filters(executor: Executor, claude_home: Path) -> None:
    """RW-054..056: newest first, limit, includeArchived; the executor's own ``projectId``
    (a workspace path) filter."""
    ids = []
    for n, cwd in enumerate(["/projects/alpha", "/projects/alpha", "/projects/beta"]):
        session = f"4444444{n}-4444-4444-8444-444444444444"
        claude_session(
            claude_home, session, cwd, [{"user": f"walrus number {n}", "assistant": "ok"}], n * 100
        )
    tasks = executor.handle("runtime.tasks.list", {})["tasks"]
    ids = [t["localTaskId"] for t in tasks]
    results = _search(executor, "walrus")
    assert [r["localTaskId"] for r in results] == ids  # same newest-first order as the list
    assert [r["updatedAt"] for r in results] == sorted(
        (r["updatedAt"] for r in results), reverse=True
    )
    assert len(_search(executor, "walrus", limit=2)) == 2
    alpha = _search(executor, "walrus", projectId="/projects/alpha")
    assert {r["workspacePath"] for r in alpha} == {"/projects/alpha"} and len(alpha) == 2
    executor.handle("runtime.tasks.archive", {"localTaskId": ids[0]})
    assert ids[0] not in [r["localTaskId"] for r in _search(executor, "walrus")]
    assert ids[0] in [r["localTaskId"] for r in _search(executor, "walrus", includeArchived=True)]
    executor.handle("runtime.tasks.delete", {"localTaskId": ids[1]})
    found = [r["localTaskId"] for r in _search(executor, "walrus", includeArchived=True)]
    assert ids[1] not in found  # RW-173: a tombstoned task is hidden at once
    for bad in ({"limit": 0}, {"limit": 101}, {"limit": "5"}, {"includeArchived": "yes"}):
        with pytest.raises(UsageError):
            _search(executor, "walrus", **bad)


def test_append_reindexes_only_the_new_bytes(executor: Executor, claude_home: Path) -> None:
    session = "55555555-5555-4555-8555-555555555555"
    path = claude_session(
        claude_home,
        session,
        "/projects/demo",
        [{"user": f"turn {n} narwhal", "assistant": "ok"} for n in range(50)],
    )
    other = claude_session(
        claude_home,
        "66666666-6666-4666-8666-666666666666",
        "/projects/demo",
        [{"user": "unrelated", "assistant": "ok"}],
    )
    assert len(_search(executor, "narwhal")) == 1
    indexer = executor.search.indexer
    before = indexer.stats.bytes_read
    appended = claude_lines(
        session, "/projects/demo", {"user": "a new axolotl", "assistant": "hi"}, 50
    )
    with path.open("a", encoding="utf-8") as handle:
        handle.write(appended)
    (hit,) = _search(executor, "axolotl")
    assert hit["messageIndex"] == 100
    assert indexer.stats.bytes_read - before == len(appended.encode())
    assert other.exists()
    before = indexer.stats.bytes_read
    assert len(_search(executor, "narwhal")) == 1  # nothing changed: nothing read
    assert indexer.stats.bytes_read == before


def test_rename_is_searchable_and_moves_updated_at(executor: Executor, claude_home: Path) -> None:
    """RW-034: renaming changes the title everywhere and advances updatedAt."""
    claude_session(
        claude_home,
        "77777777-7777-4777-8777-777777777777",
        "/projects/demo",
        [{"user": "hello", "assistant": "hi"}],
    )
    (task,) = executor.handle("runtime.tasks.list", {})["tasks"]
    reply = executor.handle(
        "runtime.tasks.rename", {"localTaskId": task["localTaskId"], "title": "Quokka  research"}
    )
    assert reply["title"] == "Quokka research" and reply["updatedAt"] > task["updatedAt"]
    (hit,) = _search(executor, "quokka")
    assert (hit["role"], hit["messageIndex"], hit["title"]) == ("title", None, "Quokka research")
    (listed,) = executor.handle("runtime.tasks.list", {})["tasks"]
    assert listed["title"] == "Quokka research"
    with pytest.raises(UsageError):
        executor.handle("runtime.tasks.rename", {"localTaskId": task["localTaskId"], "title": " "})


@pytest.mark.parametrize("batch_bytes", [search_index.BATCH_BYTES, 1])
def test_parallel_first_build_equals_the_sequential_one(
    executor: Executor, claude_home: Path, monkeypatch: pytest.MonkeyPatch, batch_bytes: int
) -> None:
    """A first build parsed in worker processes stores the same rows as one in-process, its
    sessions written in one transaction or each in its own."""
    monkeypatch.setattr(search_index, "BATCH_BYTES", batch_bytes)
    paths = [
        claude_session(
            claude_home,
            f"aaaaaaa{n}-aaaa-4aaa-8aaa-aaaaaaaaaaaa",
            f"/projects/p{n}",
            [
                {
                    "user": f"gecko {n} {k}",
                    "assistant": f"moth {k}",
                    "command": f"ls d{k}",
                    "output": "x" * 5000,
                }
                for k in range(20)
            ],
        )
        for n in range(4)
    ]
    services = executor.search
    executor.refresh_index()
    state = services.indexer.sync(workers=2, parallel_min_bytes=0)
    assert (state.tasks_done, state.errors) == (4, 0)
    ids = [t["localTaskId"] for t in executor.handle("runtime.tasks.list", {})["tasks"]]
    assert all(services.indexer.engine.cached(i) is None for i in ids)  # parsed elsewhere
    rows = (
        executor.db.read()
        .execute("SELECT local_task_id, message_index, role FROM search_rows ORDER BY 1, 2")
        .fetchall()
    )
    parallel = [tuple(r) for r in rows]
    with executor.db.write() as conn:
        conn.execute("DELETE FROM search_progress")  # forces a full, sequential rebuild
    services.indexer.sync()
    rows = (
        executor.db.read()
        .execute("SELECT local_task_id, message_index, role FROM search_rows ORDER BY 1, 2")
        .fetchall()
    )
    assert [tuple(r) for r in rows] == parallel
    assert {r["localTaskId"] for r in _search(executor, "gecko")} == {
        t["localTaskId"] for t in executor.handle("runtime.tasks.list", {})["tasks"]
    }
    assert all(p.exists() for p in paths)


def test_a_large_first_build_runs_in_the_background_with_progress(
    executor: Executor, claude_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first answer does not wait for a big index build; it reports progress."""
    from hangar.executor import search_service

    monkeypatch.setattr(search_service, "FOREGROUND_INDEX_BYTES", 0)
    for n in range(3):
        claude_session(
            claude_home,
            f"bbbbbbb{n}-bbbb-4bbb-8bbb-bbbbbbbbbbbb",
            "/projects/demo",
            [{"user": f"ocelot {n}", "assistant": "ok"}],
        )
    first = executor.handle("runtime.tasks.search", {"query": "ocelot"})
    assert set(first["indexing"]) == {
        "tasksTotal",
        "tasksDone",
        "totalBytes",
        "doneBytes",
        "errors",
    }
    assert executor.search.wait_background(60)
    status = executor.handle("runtime.index.status", {})
    assert (status["running"], status["tasksDone"], status["tasksTotal"]) == (False, 3, 3)
    later = executor.handle("runtime.tasks.search", {"query": "ocelot"})
    assert len(later["results"]) == 3 and "indexing" not in later


def test_common_words_take_the_probe_path_with_the_same_answer(
    executor: Executor, claude_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many hits switch from scanning hits to probing tasks newest first: same results."""
    from hangar.executor import search as search_module

    for n in range(5):
        claude_session(
            claude_home,
            f"ccccccc{n}-cccc-4ccc-8ccc-cccccccccccc",
            f"/projects/p{n % 2}",
            [{"user": f"common heron {k} {n}", "assistant": f"ibis {k}"} for k in range(n + 1)],
            n * 10,
        )
    queries = [("heron", {}), ("ibis", {"limit": 2}), ("heron", {"projectId": "/projects/p1"})]
    scanned = [_search(executor, q, **extra) for q, extra in queries]
    monkeypatch.setattr(search_module, "SCAN_HITS", 0)
    probed = [_search(executor, q, **extra) for q, extra in queries]
    assert probed == scanned
    assert [len(r) for r in scanned] == [5, 2, 2]
    assert all(hit["messageIndex"] == 2 * int(hit["snippet"].split()[-1]) for hit in scanned[0])


def test_long_tool_output_is_indexed_by_its_head_and_tail(
    executor: Executor, claude_home: Path
) -> None:
    """Tool output is clipped for the index (first 256, last 768 characters per call)."""
    output = "starting narwhalhead\n" + "filler line\n" * 500 + "middle sealmiddle\n"
    output += "filler line\n" * 500 + "exit status tailwalrus\n"
    claude_session(
        claude_home,
        "ddddddd0-dddd-4ddd-8ddd-dddddddddddd",
        "/projects/demo",
        [{"user": "run it", "assistant": "done", "command": "make", "output": output}],
    )
    assert len(_search(executor, "narwhalhead", includeToolOutput=True)) == 1
    assert len(_search(executor, "tailwalrus", includeToolOutput=True)) == 1
    assert _search(executor, "sealmiddle", includeToolOutput=True) == []
