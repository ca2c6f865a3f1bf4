"""The usage report where users read it: the API, the Usage page and ``hangar usage``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from hangar.agents.launch import NoLauncher
from hangar.composition import LocalHangar

from .test_usage_rules import _claude_home, _older_codex_home

TOKEN = "usage-test-token-0123456789abcdef0123"


@pytest.fixture
def home_with_usage(isolated_home: Path) -> Path:
    _older_codex_home(isolated_home)
    _claude_home(isolated_home)
    return isolated_home


@pytest.fixture
def client(home_with_usage: Path) -> Iterator[TestClient]:
    local = LocalHangar.open(launcher=NoLauncher())
    try:
        app = local.create_app(TOKEN)
        with TestClient(
            app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {TOKEN}"}
        ) as test_client:
            yield test_client
    finally:
        local.close()


def test_the_api_groups_every_device_by_project(client: TestClient) -> None:
    body = client.get("/api/usage", params={"by": "project"}).json()
    assert body["by"] == "project" and body["errors"] == []
    (project,) = body["rows"]
    assert project["label"] == "p" and project["project"] == "/srv/p"
    assert project["totalTokens"] == 150 + 50 + 1300 + 1215
    assert body["total"]["totalTokens"] == project["totalTokens"]
    bad = client.get("/api/usage", params={"by": "week"})
    assert bad.status_code == 422


def test_the_usage_page_shows_tasks_with_costs(client: TestClient) -> None:
    client.post("/login", data={"token": TOKEN, "next": "/usage"})
    html = client.get("/usage", params={"by": "model"}).text
    assert "claude-sonnet-4-5" in html and "gpt-5-codex" in html
    assert "2,515" in html  # the Claude model's tokens, with a thousands separator
    assert 'aria-current="page">Model' in html


def test_hangar_usage_prints_a_table_and_json(home_with_usage: Path) -> None:
    env = dict(os.environ)
    table = subprocess.run(
        [sys.executable, "-m", "hangar", "usage", "--by", "model"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = table.stdout.splitlines()
    assert lines[0].split()[:3] == ["MODEL", "CALLS", "INPUT"]
    assert any(line.startswith("claude-sonnet-4-5") for line in lines)
    assert lines[-1].startswith("Total")
    data = json.loads(
        subprocess.run(
            [sys.executable, "-m", "hangar", "usage", "--by", "day", "--json"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    assert [row["key"] for row in data["rows"]] == ["2026-05-12", "2026-05-11"]
