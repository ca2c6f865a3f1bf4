"""What a CLI command imports before it does anything (DESIGN §7: "users feel process start
first"): each runs in a fresh interpreter, as a user runs it, and reports ``sys.modules``.

``-X importtime`` shows what each import costs but not the modules a :class:`LazyGroup` loads
through :func:`importlib.import_module`, so the tests read ``sys.modules`` at exit instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from hangar.cli.lazy import LazyCommand, LazyGroup
from hangar.cli.main import COMMANDS, cli
from hangar.cli.tasks import LIFECYCLE_COMMANDS, tasks_group

from .test_executor_tasks import write_rollout

_STORES = ("codex", "claude", "opencode", "continue_cli", "gemini", "copilot", "cursor", "qwen")
STORE_MODULES = (*(f"hangar.agents.{name}" for name in _STORES), "hangar.agents.kiro")
WEB_STACK = ("fastapi", "starlette", "uvicorn", "pydantic", "jinja2", "httpx", "watchfiles")
ORM = ("sqlalchemy", "alembic")

_REPORT = """
import atexit, json, runpy, sys
atexit.register(lambda: sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
sys.argv = ["hangar", *sys.argv[1:]]
runpy.run_module("hangar", run_name="__main__")
"""


def run_script(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -c SCRIPT ARGS`` in a fresh interpreter with this environment."""
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
        check=False,
    )


def imported_by(*args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run ``hangar ARGS`` in a fresh interpreter; its result and every module it imported."""
    done = run_script(_REPORT, *args)
    line = next(x for x in done.stderr.splitlines() if x.startswith("MODULES "))
    return done, set(json.loads(line.removeprefix("MODULES ")))


def _packages(modules: set[str], names: tuple[str, ...]) -> set[str]:
    return {m for m in modules if m.split(".")[0] in names}


def test_help_imports_no_web_stack_orm_or_command_module() -> None:
    done, modules = imported_by("--help")
    assert done.returncode == 0 and "tasks" in done.stdout
    assert _packages(modules, ("fastapi", "sqlalchemy", "alembic", "uvicorn")) == set()
    assert _packages(modules, WEB_STACK + ORM) == set()
    assert {m for m in modules if m.startswith("hangar.")} <= {
        "hangar.cli",
        "hangar.cli.hangar_click",
        "hangar.cli.lazy",
        "hangar.cli.main",
        "hangar.errors",
    }


def test_help_loads_no_logging_pathlib_or_shutil() -> None:
    """A few milliseconds each of every ``hangar --help`` (issue 14, goal 1): logging is
    imported only to log a bug, pathlib only when an error carries a path, and the help width
    is found without shutil (which loads the compression modules)."""
    _, modules = imported_by("--help")
    assert {"logging", "pathlib", "shutil", "bz2", "lzma"} & modules == set()


@pytest.mark.parametrize("columns", ["30", "60", "200"])
def test_help_wraps_at_the_width_click_itself_picks(
    columns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    ctx = click.Context(cli, info_name="hangar", **cli.context_settings)  # shutil's width
    clicks_own = cli.get_help(ctx)
    done = subprocess.run(
        [sys.executable, "-m", "hangar", "--help"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
        check=True,
    )
    assert done.stdout == clicks_own + "\n"


def test_version_imports_only_its_own_module() -> None:
    done, modules = imported_by("version")
    assert done.returncode == 0 and done.stdout.startswith("hangar ")
    hangar_modules = {m for m in modules if m.startswith("hangar.")}
    assert "hangar.cli.info" in hangar_modules
    assert not {m for m in hangar_modules if m.startswith(("hangar.executor", "hangar.agents"))}
    assert "msgspec" not in modules


def test_tasks_list_imports_no_web_stack_and_only_present_agents(isolated_home: Path) -> None:
    """A Codex-only home: ``tasks list`` imports the Codex store, no other agent's parser,
    no web stack, no ORM, no delete worker or search engine."""
    write_rollout(isolated_home)
    done, modules = imported_by("tasks", "list", "--json")
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["tasks"]) == 1
    assert _packages(modules, WEB_STACK + ORM) == set()
    assert set(STORE_MODULES) & modules == {"hangar.agents.codex"}
    assert "yaml" not in modules
    assert {"hangar.executor.delete_worker", "hangar.executor.search_index"} & modules == set()
    assert "hangar.cli.tasks_lifecycle" not in modules


def test_tasks_show_loads_only_what_reading_a_transcript_needs(isolated_home: Path) -> None:
    """``tasks show`` of a never-seen task is a full parse whose start counts (issue 14,
    goal 5): it loads no OpenSSL (``hashlib``), no sockets, no temp files, no redaction
    rules and no turn machinery, each a few milliseconds a command that shows a page never
    uses."""
    write_rollout(isolated_home)
    done, _ = imported_by("tasks", "list", "--json")
    task = json.loads(done.stdout)["tasks"][0]["localTaskId"]
    done, modules = imported_by("tasks", "show", task, "--json", "--limit", "50")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["messages"]
    unneeded = {"_hashlib", "hashlib", "socket", "tempfile", "shutil", "hangar.redaction"}
    unneeded |= {"hangar.executor.turn_stream", "hangar.agents.turns"}
    assert unneeded & modules == set()
    assert _packages(modules, WEB_STACK + ORM) == set()


def test_a_command_runs_with_its_imports_out_of_the_cycle_collectors_sight() -> None:
    """Issue 14, goal 5: collections during a command walk only what it made, not the
    modules it imported (every object alive once the command is loaded is frozen)."""
    report = _REPORT.replace(
        "runpy.run_module(",
        "import gc; atexit.register(lambda: sys.stderr.write("
        "f'\\nFROZEN {gc.get_freeze_count()}\\n')); runpy.run_module(",
    )
    done = run_script(report, "tasks", "list", "--json")
    assert done.returncode == 0, done.stderr
    frozen = next(x for x in done.stderr.splitlines() if x.startswith("FROZEN "))
    assert int(frozen.removeprefix("FROZEN ")) > 10_000


def test_an_empty_home_lists_without_any_agent_parser() -> None:
    done, modules = imported_by("tasks", "list", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tasks"] == []
    assert set(STORE_MODULES) & modules == set()


@pytest.mark.parametrize(
    ("group", "table"), [(cli, COMMANDS), (tasks_group, LIFECYCLE_COMMANDS)], ids=["top", "tasks"]
)
def test_every_lazy_entry_loads_and_its_summary_is_the_commands_own(
    group: click.Group, table: dict[str, LazyCommand]
) -> None:
    """``--help`` shows the table's summaries: they must say what the commands say."""
    assert isinstance(group, LazyGroup)
    for name, entry in table.items():
        command = entry.load()
        assert command.name == name
        assert command.hidden == entry.hidden
        for limit in (45, 200):
            assert entry.short_help(limit) == command.get_short_help_str(limit), name


def test_help_text_is_the_same_once_every_command_is_loaded() -> None:
    ctx = click.Context(cli, info_name="hangar")
    lazy_help = cli.get_help(ctx)
    for name in cli.list_commands(ctx):
        cli.get_command(ctx, name)  # loads and keeps the command
    assert cli.get_help(ctx) == lazy_help
    assert "__claude-session-hook" not in lazy_help


def test_rpc_families_name_exactly_their_modules_handlers() -> None:
    """The executor imports a handler module on its family's first call: the table that
    says which module serves which method must match what each module serves."""
    import importlib

    from hangar.executor.service import FAMILIES, Executor
    from hangar.protocol.methods import METHODS

    for module, methods in FAMILIES.items():
        assert set(importlib.import_module(module).HANDLERS) == set(methods), module
    assert Executor.methods == set(METHODS)
