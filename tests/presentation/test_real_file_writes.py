"""File changes written by the real CLIs (offline, in the loopback-only sandbox, against the
scripted fake model), read back by hangar and shown as a person reads them."""

from __future__ import annotations

from collections.abc import Callable

import msgspec
import pytest

from hangar.agents.claude import ClaudeStore
from hangar.agents.opencode import OpenCodeStore
from hangar.agents.registry import agent_homes
from hangar.model import FileChangesBlock, ToolBlock
from hangar.presentation.diffs import file_view
from hangar.presentation.tool_view import tool_view
from hangar.testing.agent_runs import AgentRun
from hangar.testing.conformance import read_session
from hangar.testing.scenarios import scenario_from_dict

pytestmark = pytest.mark.real_agents

RunAgent = Callable[..., AgentRun]
NEW_FILE = {"path": "notes.txt", "content": "one\ntwo\nthree\n"}
SCENARIO = {
    "name": "write-new-file",
    "workspace": {"git": True, "files": {"README.md": "notes\n"}},
    "turns": [{"write": NEW_FILE}, {"text": "Wrote notes.txt."}],
}


def _blocks(run: AgentRun, store_class: type) -> list[object]:
    runtime = run.cli
    store = store_class(agent_homes({"HOME": str(run.home)})[runtime])
    (source,) = [s for s in store.discover() if s.session_id == run.session_id]
    messages, _ = read_session(store, source)
    return [b for m in messages for b in m.blocks or []]


def test_a_new_file_written_by_opencode_counts_its_lines(run_agent: RunAgent) -> None:
    """OpenCode records no line counts for a new file (only ``exists: false``): the change
    shows every line written, not +0 −0."""
    run = run_agent("opencode", scenario_from_dict(SCENARIO), "Write the notes")
    assert run.returncode == 0, run.stderr
    assert (run.cwd / "notes.txt").read_text() == NEW_FILE["content"]
    changes = [b for b in _blocks(run, OpenCodeStore) if isinstance(b, FileChangesBlock)]
    (change,) = [f for b in changes for f in b.files]
    view = file_view(msgspec.to_builtins(change), str(run.cwd))
    assert (view.path, view.additions, view.deletions) == ("notes.txt", 3, 0)
    assert view.full_path == str(run.cwd / "notes.txt")
    (write,) = [b for b in _blocks(run, OpenCodeStore) if isinstance(b, ToolBlock)]
    (from_input,) = tool_view(msgspec.to_builtins(write), str(run.cwd)).files
    assert (from_input.path, from_input.additions, from_input.deletions) == ("notes.txt", 3, 0)


def test_a_claude_write_reads_as_a_file_change(run_agent: RunAgent) -> None:
    run = run_agent("claude", scenario_from_dict(SCENARIO), "Write the notes")
    assert run.returncode == 0, run.stderr
    (write,) = [b for b in _blocks(run, ClaudeStore) if isinstance(b, ToolBlock)]
    view = tool_view(msgspec.to_builtins(write), str(run.cwd))
    (changed,) = view.files
    assert (changed.path, changed.additions, changed.deletions) == ("notes.txt", 3, 0)
    assert [line.text for line in changed.lines] == ["+one", "+two", "+three"]
    assert view.summary == "notes.txt"  # relative to the task's directory
