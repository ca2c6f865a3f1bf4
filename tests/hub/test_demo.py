"""``hangar serve --demo``: the bundled corpus in a temp copy, the user's state untouched."""

from __future__ import annotations

import json
import re
import signal
import time
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


def _auth(output: list[str]) -> dict[str, str]:
    token = re.search(r"demo token: (\S+)", "".join(output))
    assert token, "".join(output)
    return {"Authorization": f"Bearer {token.group(1)}"}


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_hardening_19_sigterm_removes_the_demo_copy(
    manifest: dict[str, object], hangar_home: Path, signum: int
) -> None:
    with running_hub("--demo") as hub:
        copy = re.search(r"sample sessions in (\S+)", "".join(hub.output))
        assert copy
        demo_root = Path(copy.group(1))
        assert demo_root.is_dir()
        hub.process.send_signal(signum)
        assert hub.process.wait(timeout=30) == 128 + signum
    assert not demo_root.exists()
    assert "stopped" in "".join(hub.output)


def test_hardening_19_the_demo_has_sample_issues_with_a_local_run_and_comments(
    manifest: dict[str, object], hangar_home: Path
) -> None:
    with (
        running_hub("--demo") as hub,
        httpx.Client(
            base_url=hub.url, trust_env=False, timeout=60, headers=_auth(hub.output)
        ) as http,
    ):
        issues = http.get("/api/issues").json()["issues"]
        assert len(issues) >= 3
        by_title = {issue["title"]: issue for issue in issues}
        child = by_title["Document the checkout steps in CHECKOUT.md"]
        assert (
            child["parentKey"]
            == by_title["Checkout: reserve stock before taking the payment"]["key"]
        )
        cart = by_title["Add a cart_total helper to the shop package"]
        assert cart["status"] == "in_review"
        (run,) = http.get(f"/api/issues/{cart['key']}/local-runs").json()["runs"]
        assert (run["status"], run["cliName"], run["exitCode"]) == ("completed", "codex", 0)
        messages = http.get(f"/api/local-runs/{run['id']}/messages").json()["messages"]
        types = [m["type"] for m in messages]
        assert types[0] == "user_input" and types[-1] == "final" and "tool_result" in types
        deadline = time.monotonic() + 30
        while True:  # the hub's outbox turns the run's input and final reply into comments
            bodies = [
                c["body"]
                for c in http.get(f"/api/issues/{cart['key']}/comments").json()["comments"]
            ]
            if any("cart_total(items)" in body for body in bodies) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert any(body.startswith("Started local `codex` run") for body in bodies)
        assert any("cart_total(items)" in body for body in bodies), bodies
        assert any("Integer cents" in body for body in bodies)
