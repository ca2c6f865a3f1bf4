"""The LocalTask index over these agents: an unchanged re-list opens no transcript; a
changed one describes only what changed, and reading a transcript gives its messages."""

from __future__ import annotations

import shutil
from pathlib import Path

from hangar.agents.registry import agent_homes
from hangar.executor.service import Executor
from hangar.testing.conformance import count_opens

from .homes import FIXTURE_HOMES

FILE_AGENTS = ("gemini", "copilot", "qwen", "cursor")


def test_relist_reads_nothing_until_a_file_changes(
    isolated_home: Path, public_fixtures: Path, tmp_path: Path
) -> None:
    homes = agent_homes()
    for runtime in FILE_AGENTS:
        sample = FIXTURE_HOMES[runtime](public_fixtures, tmp_path / "samples" / runtime)
        shutil.copytree(sample.root, homes[runtime].root, dirs_exist_ok=True)
    executor = Executor.open()
    first = executor.handle("runtime.tasks.list", {})["tasks"]
    assert {t["runtime"] for t in first} == set(FILE_AGENTS)
    with count_opens(isolated_home) as opened:
        again = executor.handle("runtime.tasks.list", {})["tasks"]
    assert opened == [], "an unchanged re-list opens no session file"
    assert executor.index.last_refresh.described == 0
    assert [t["localTaskId"] for t in again] == [t["localTaskId"] for t in first]

    qwen = next(homes["qwen"].root.glob("projects/*/chats/*0001.jsonl"))
    with qwen.open("ab") as handle:
        handle.write(
            b'{"uuid":"new","type":"user","timestamp":"2026-08-17T12:10:00.000Z",'
            b'"message":{"role":"user","parts":[{"text":"One more thing"}]}}\n'
        )
    with count_opens(isolated_home) as opened:
        executor.handle("runtime.tasks.list", {})
    assert executor.index.last_refresh.described == 1
    assert {Path(p).name for p in opened} == {qwen.name}
    task = next(t for t in again if t["runtimeHandle"].get("sessionId") == qwen.stem)
    transcript = executor.handle("runtime.tasks.transcript", {"localTaskId": task["localTaskId"]})
    assert transcript["messages"][-1]["content"] == "One more thing"


def test_every_task_of_every_agent_opens(
    isolated_home: Path, public_fixtures: Path, tmp_path: Path
) -> None:
    """Each listed task of these agents opens through `runtime.tasks.transcript` with its
    messages indexed from 0 (rewritten and incremental formats alike)."""
    homes = agent_homes()
    for runtime in (*FILE_AGENTS, "kiro"):
        sample = FIXTURE_HOMES[runtime](public_fixtures, tmp_path / "samples" / runtime)
        shutil.copytree(sample.root, homes[runtime].root, dirs_exist_ok=True)
        for (_, extra), (_, wanted) in zip(sample.extra, homes[runtime].extra, strict=False):
            shutil.copytree(extra, wanted, dirs_exist_ok=True)
    executor = Executor.open()
    tasks = executor.handle("runtime.tasks.list", {})["tasks"]
    assert {t["runtime"] for t in tasks} == {*FILE_AGENTS, "kiro"}
    for task in tasks:
        page = executor.handle(
            "runtime.tasks.transcript", {"localTaskId": task["localTaskId"], "limit": 1000}
        )
        indexes = [m["index"] for m in page["messages"]]
        assert indexes == list(range(page["totalMessages"])), task["title"]
