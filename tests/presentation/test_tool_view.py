"""Tool calls read like what happened: on the demo's own Codex session (generated with the real
CLI) and on public Codex rollouts of the older output shape."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from hangar.agents.codex import CodexStore
from hangar.agents.registry import agent_homes
from hangar.hub.demo import demo_corpus
from hangar.model import ToolBlock
from hangar.presentation.diffs import file_view
from hangar.presentation.tool_view import clean_output, shell_command, tool_view
from hangar.testing.conformance import read_session


def _demo_codex_tools() -> tuple[list[dict[str, object]], str]:
    try:
        home = demo_corpus()
    except Exception as exc:  # a checkout without the generated corpus
        pytest.skip(str(exc))
    store = CodexStore(agent_homes({"HOME": str(home)})["codex"])
    source = next(s for s in store.discover() if s.session_id.startswith("01a22b17"))
    messages, _ = read_session(store, source)
    blocks = [
        msgspec.to_builtins(b)
        for m in messages
        for b in m.blocks or []
        if isinstance(b, ToolBlock) and b.name == "exec_command"
    ]
    return blocks, "/home/demo/code/webshop"  # the session's cwd


def test_codex_commands_and_output_without_its_bookkeeping() -> None:
    blocks, cwd = _demo_codex_tools()
    first = tool_view(blocks[0], cwd)
    assert first.command == "ls shop && cat shop/catalog.py"
    assert first.summary == first.command and first.fields == []
    assert first.exit_code == 0
    assert first.output == '__init__.py\ncatalog.py\nPRICES = {"apple": 120, "pear": 95}\n'
    for block in blocks:
        view = tool_view(block, cwd)
        assert view.output is not None
        assert not any(word in view.output for word in ("Chunk ID", "Wall time", "Output:"))


def test_the_older_codex_output_wrapper(public_fixtures: Path) -> None:
    outputs = []
    rollouts = sorted((public_fixtures / "codex" / "codemie-code").glob("rollout-*.jsonl"))
    lines = [line for path in rollouts for line in path.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        payload = json.loads(line).get("payload") or {}
        if payload.get("type") == "custom_tool_call_output" and '"metadata"' in str(
            payload.get("output")
        ):
            outputs.append(payload["output"])
    assert outputs
    text, code = clean_output(outputs[0])
    wrapped = json.loads(outputs[0])
    assert (text, code) == (wrapped["output"], wrapped["metadata"]["exit_code"])


def test_a_shell_argv_reads_as_its_command() -> None:
    assert shell_command({"command": ["bash", "-lc", "cd src &&\npytest -q"]}) == (
        "cd src &&\npytest -q"
    )
    assert shell_command({"command": ["git", "status"]}) == "git status"
    assert shell_command({"cmd": ""}) is None


def test_arguments_are_short_pairs_without_empty_ones() -> None:
    view = tool_view(
        {
            "name": "Grep",
            "input": {"pattern": "def ", "path": "/srv/app/src", "glob": "", "head": None},
        },
        "/srv/app",
    )
    assert view.fields == [("pattern", "def"), ("path", "src")]
    assert view.summary == "src"
    assert view.raw_input is not None and json.loads(view.raw_input)["glob"] == ""


def test_counts_come_from_the_diff_when_there_is_one() -> None:
    view = file_view(
        {
            "path": "/srv/app/a.py",
            "additions": 0,
            "deletions": 0,
            "diff": "@@ -1 +1,2 @@\n-a\n+b\n+c",
        },
        "/srv/app",
    )
    assert (view.path, view.additions, view.deletions) == ("a.py", 2, 1)
    assert [line.kind for line in view.lines] == ["hunk", "del", "add", "add"]
