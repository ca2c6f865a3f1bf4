"""A third-party agent, installed with pip, registers through the ``hangar.agents`` entry point
group and shows up everywhere a built-in does — without touching hangar's code.

The package under ``tests/plugin_agent`` is what a plugin author would publish: one ``Agent``
record and a store facet for a made-up "Notebook" CLI. It is installed into a folder of its own
and put on ``PYTHONPATH`` of real ``hangar`` processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from .server_process import running_hub

PLUGIN = Path(__file__).resolve().parents[1] / "plugin_agent"


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("plugin-site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", site, PLUGIN],
        check=True,
        capture_output=True,
    )
    return site


@pytest.fixture
def plugin_env(plugin_site: Path, isolated_home: Path) -> dict[str, str]:
    notebook = isolated_home / "notes"
    sessions = notebook / "sessions"
    sessions.mkdir(parents=True)
    lines = [
        {
            "role": "user",
            "text": "Plan the kestrel release",
            "cwd": "/srv/birds",
            "time": "2026-11-30T08:00:00Z",
        },
        {"role": "assistant", "text": "Here is the plan.", "time": "2026-11-30T08:00:05Z"},
    ]
    (sessions / "nb-0001.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    env = dict(os.environ)
    env["PYTHONPATH"] = str(plugin_site)
    env["NOTEBOOK_HOME"] = str(notebook)
    return env


def _hangar(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hangar", *args], env=env, capture_output=True, text=True, timeout=60
    )


def test_a_plugin_agent_appears_in_hangar_paths(plugin_env: dict[str, str]) -> None:
    done = _hangar(plugin_env, "paths", "--json")
    assert done.returncode == 0, done.stderr
    notebook = json.loads(done.stdout)["agents"]["notebook"]
    assert notebook == {"root": plugin_env["NOTEBOOK_HOME"], "override": "NOTEBOOK_HOME"}
    assert (
        "notebook"
        not in json.loads(_hangar({**plugin_env, "PYTHONPATH": ""}, "paths", "--json").stdout)[
            "agents"
        ]
    )


def test_a_plugin_agent_store_opens_like_a_built_in(plugin_env: dict[str, str]) -> None:
    done = _hangar(plugin_env, "tasks", "list", "--json")
    assert done.returncode == 0, done.stderr
    (task,) = [t for t in json.loads(done.stdout)["tasks"] if t["runtime"] == "notebook"]
    assert (task["title"], task["workspacePath"]) == ("Plan the kestrel release", "/srv/birds")
    shown = _hangar(plugin_env, "tasks", "show", task["localTaskId"], "--json")
    assert shown.returncode == 0, shown.stderr
    page = json.loads(shown.stdout)
    assert [m["content"] for m in page["messages"]] == [
        "Plan the kestrel release",
        "Here is the plan.",
    ]


def test_a_plugin_agent_shows_in_the_web_sidebar_with_its_badge(
    plugin_env: dict[str, str], hangar_home: Path
) -> None:
    with (
        running_hub(env=plugin_env) as hub,
        httpx.Client(base_url=hub.url, trust_env=False, timeout=30) as client,
    ):
        login = client.post(
            "/login", data={"token": hub.token(hangar_home), "next": "/"}, follow_redirects=True
        )
        assert login.status_code == 200, login.text
        sidebar = login.text
    assert 'class="rt rt-notebook"' in sidebar
    assert 'title="Notebook"' in sidebar and ">Nb</span>" in sidebar
    assert "Plan the kestrel release" in sidebar
