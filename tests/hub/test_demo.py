"""``hangar serve --demo``: the bundled corpus in a temp copy, the user's state untouched."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from hangar.hub.demo import demo_corpus

from .server_process import running_hub


@pytest.fixture
def manifest() -> dict[str, object]:
    try:
        home = demo_corpus()
    except Exception as exc:  # a checkout without the generated corpus
        pytest.skip(str(exc))
    data: dict[str, object] = json.loads((home.parent / "manifest.json").read_text())
    return data


def test_demo_serves_the_corpus_without_touching_the_users_state(
    manifest: dict[str, object], isolated_home: Path, hangar_home: Path
) -> None:
    before = sorted(p.relative_to(isolated_home) for p in isolated_home.rglob("*"))
    with running_hub("--demo") as hub:
        printed = "".join(hub.output)
        token = re.search(r"demo token: (\S+)", printed)
        assert token, printed
        copy = re.search(r"sample sessions in (\S+)", printed)
        assert copy, printed
        demo_root = Path(copy.group(1))
        assert demo_root.is_dir()
        with httpx.Client(base_url=hub.url, trust_env=False, timeout=60) as http:
            auth = {"Authorization": f"Bearer {token.group(1)}"}
            body = http.get("/api/runtime-work", headers=auth).json()
            assert body["errors"] == []
            listed = [t for p in body["projects"] for t in p["tasks"]] + body["conversations"]
            sessions = manifest["sessions"]
            assert isinstance(sessions, list)
            runtime_of = {"cn": "continue"}
            expected = sorted(runtime_of.get(s["cli"], s["cli"]) for s in sessions)
            assert sorted(t["runtime"] for t in listed) == expected
            assert all(t["title"] for t in listed)
            chats = list(body["conversations"])
            assert [t["workspaceKind"] for t in chats] == ["chat"] * len(chats)
            assert len(chats) == sum(1 for s in sessions if s["workspaceKind"] == "chat")
            for task in listed:
                page = http.post(
                    "/api/runtime-work/transcript",
                    json={"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]},
                    headers=auth,
                )
                assert page.status_code == 200, page.text
                assert page.json()["messages"], task["title"]
    after = sorted(p.relative_to(isolated_home) for p in isolated_home.rglob("*"))
    assert after == before  # the user's HOME: nothing read into or written
    assert not hangar_home.exists()  # the user's HANGAR_HOME: never created
    assert not demo_root.exists()  # the temp copy is removed on exit
