"""``hangar search`` and ``hangar tasks rename|archive|unarchive|delete|restore|purge``."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from .sessions import claude_session


def _hangar(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hangar", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
        check=False,
    )


def test_search_json_without_a_hub(claude_home: Path) -> None:
    claude_session(
        claude_home,
        "88888888-8888-4888-8888-888888888888",
        "/projects/demo",
        [{"user": "migrate the billing tables", "assistant": "迁移完成 and verified"}],
    )
    done = _hangar("search", "billing", "--json")
    assert done.returncode == 0, done.stderr
    (hit,) = json.loads(done.stdout)["results"]
    assert (hit["messageIndex"], hit["role"]) == (0, "user")
    assert "«billing»" in hit["snippet"]
    done = _hangar("search", "迁移", "--json")
    assert json.loads(done.stdout)["results"][0]["messageIndex"] == 1
    text = _hangar("search", "billing")
    assert text.returncode == 0 and "#0 user" in text.stdout


def test_search_errors_are_one_line_never_a_traceback(claude_home: Path) -> None:
    for query in ["", '"open', "((("]:
        done = _hangar("search", query)
        assert done.returncode == 2
        assert "Traceback" not in done.stderr
        assert "Error:" in done.stderr


def test_tasks_lifecycle_commands(claude_home: Path, hangar_home: Path) -> None:
    path = claude_session(
        claude_home,
        "99999999-9999-4999-8999-999999999999",
        "/projects/demo",
        [{"user": "hello there", "assistant": "hi"}],
    )
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    (task,) = json.loads(_hangar("tasks", "list", "--json").stdout)["tasks"]
    task_id = task["localTaskId"]
    assert _hangar("tasks", "rename", task_id[:8], "Pelican plan").returncode == 0
    hits = json.loads(_hangar("search", "pelican", "--json").stdout)["results"]
    assert hits[0]["title"] == "Pelican plan"
    assert _hangar("tasks", "archive", task_id).returncode == 0
    assert json.loads(_hangar("tasks", "list", "--json").stdout)["tasks"] == []
    assert _hangar("tasks", "unarchive", task_id).returncode == 0
    done = _hangar("tasks", "delete", task_id, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["progress"]["done"] == 1
    assert not path.exists()
    assert (hangar_home / "trash" / task_id / "manifest.json").exists()
    assert _hangar("tasks", "restore", task_id[:8]).returncode == 0
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    assert _hangar("tasks", "delete", task_id).returncode == 0
    assert _hangar("tasks", "purge", task_id).returncode == 0
    assert not (hangar_home / "trash" / task_id).exists()
    missing = _hangar("tasks", "restore", task_id)
    assert missing.returncode == 1 and "not found" in missing.stderr


def test_first_build_shows_a_progress_bar(claude_home: Path) -> None:
    """The first `hangar search` over more than 1 MB of sessions shows indexing progress."""
    for n in range(3):
        claude_session(
            claude_home,
            f"eeeeeee{n}-eeee-4eee-8eee-eeeeeeeeeeee",
            "/projects/demo",
            [
                {"user": f"flamingo {k}", "assistant": "ok", "command": "ls", "output": "y" * 4000}
                for k in range(120)
            ],
        )
    done = _hangar("search", "flamingo")
    assert done.returncode == 0, done.stderr
    assert "indexing sessions" in done.stderr
    again = _hangar("search", "flamingo")
    assert "indexing sessions" not in again.stderr  # nothing left to index


def test_search_order_agent_and_dates(claude_home: Path) -> None:
    dense = [{"user": "gecko gecko gecko", "assistant": "gecko noted"}]
    sparse = [{"user": "one gecko in a sentence with many other words", "assistant": "ok"}]
    claude_session(claude_home, "67777777-7777-4777-8777-777777777777", "/p/a", dense, 0)
    claude_session(claude_home, "68888888-8888-4888-8888-888888888888", "/p/a", sparse, 100)
    newest = json.loads(_hangar("search", "gecko", "--json").stdout)["results"]
    best = json.loads(_hangar("search", "gecko", "--json", "--order", "relevance").stdout)
    ids = [r["localTaskId"] for r in newest]
    assert [r["localTaskId"] for r in best["results"]] == ids[::-1]
    text = _hangar("search", "gecko", "--order", "relevance")
    assert "more match" in text.stdout.splitlines()[1]  # the dense session matches three rows
    assert _hangar("search", "gecko", "--agent", "codex").stdout.strip() == "no matches"
    assert _hangar("search", "gecko", "--since", "2099-01-01").stdout.strip() == "no matches"
    before = _hangar("search", "gecko", "--json", "--before", "2099-01-01")
    assert len(json.loads(before.stdout)["results"]) == 2
    bad = _hangar("search", "gecko", "--since", "yesterday")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
