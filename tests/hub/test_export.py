"""A whole transcript exported as Markdown and as one self-contained HTML page, secrets
redacted: from the CLI (this device) and from the hub's API."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from .sessions import ClaudeSession

SECRET = "sk-ant-api03-" + "Q" * 40
SESSION = "55555555-eeee-4eee-8eee-000000000005"


@pytest.fixture
def session(isolated_home: Path) -> ClaudeSession:
    made = ClaudeSession(isolated_home, SESSION, "/srv/projects/shop")
    made.user("Fix the cart total")
    made.tool("Bash", {"command": "cd shop &&\npytest -q"}, "3 passed")
    made.tool("Write", {"file_path": "/srv/projects/shop/notes.md", "content": "a\nb\n"}, "ok")
    made.assistant(f"Done. The key was {SECRET}; the cart uses ```fences``` now.")
    made.turns(130)  # more than one page of the transcript
    return made


def _hangar(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "hangar", *args],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return done.stdout


def test_markdown_export_from_the_cli(session: ClaudeSession) -> None:
    text = _hangar("tasks", "export", SESSION, "--format", "md")
    assert text.startswith("# Fix the cart total\n")
    assert "- Agent: claude" in text and "- Directory: /srv/projects/shop" in text
    assert "### You" in text and "### Assistant" in text
    assert "```sh\ncd shop &&\npytest -q\n```" in text  # the command with its line breaks
    assert "`notes.md` +2 −0" in text
    assert SECRET not in text and "The key was ****;" in text
    assert text.count("### You") == 1 + 130  # every page, oldest first
    assert (
        text.index("Fix the cart total") < text.index("Question 0:") < text.index("Question 129:")
    )


def test_html_export_is_one_page_with_nothing_from_outside(
    session: ClaudeSession, tmp_path: Path
) -> None:
    target = tmp_path / "out.html"
    subprocess.run(
        [sys.executable, "-m", "hangar", "tasks", "export", SESSION, "--format", "html",
         "-o", str(target)],
        env=dict(os.environ), check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>")
    assert "<title>Fix the cart total</title>" in page
    assert "<script" not in page and "src=" not in page and "<link" not in page
    assert SECRET not in page
    assert "cd shop &amp;&amp;\npytest -q" in page


def test_the_hub_exports_any_task_as_a_download(session: ClaudeSession, client: TestClient) -> None:
    tasks: list[dict[str, Any]] = [
        t for p in client.get("/api/runtime-work").json()["projects"] for t in p["tasks"]
    ]
    (task,) = tasks
    query = {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"], "format": "md"}
    response = client.get("/api/runtime-work/export", params=query)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/markdown")
    assert 'filename="fix-the-cart-total.md"' in response.headers["content-disposition"]
    assert response.text == _hangar("tasks", "export", SESSION)
    bad = client.get("/api/runtime-work/export", params={**query, "format": "pdf"})
    assert bad.status_code == 422
