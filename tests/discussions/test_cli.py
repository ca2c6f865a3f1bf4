"""`hangar discuss list|show` and the command's refusals, against a real `hangar serve`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hangar.hub_client import HubClient
from hangar.localrun.discussion.plans import plan_digest
from hub.server_process import running_hub  # tests/hub, a sibling package

PLAN = "# Cache the index\n\n1. Persist the turn table.\n"


def hangar(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hangar", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ if env is None else env),
        check=False,
    )


def test_list_and_show(hangar_home: Path) -> None:
    with running_hub() as hub:
        client = HubClient(hub.url, hub.token(hangar_home), timeout=10)
        env = {**os.environ, "HANGAR_SERVER_URL": hub.url}
        body = {"cliName": "codex", "provider": "codex", "clientId": "cli-aaaaaaaa"}
        open_one = client.post("/api/discussions", body)
        done = client.post("/api/discussions", {**body, "providerSessionId": "t-2"})
        for turn in (
            {"role": "user", "content": "How do we cache?", "sourceKey": "u"},
            {"role": "assistant", "content": "With a table.", "sourceKey": "a"},
            {"role": "plan", "content": PLAN, "sourceKey": "p"},
        ):
            client.post(f"/api/discussions/{open_one['id']}/turns", {**turn, "source": "s"})
        client.post(f"/api/discussions/{done['id']}/turns",
                    {"role": "plan", "content": PLAN, "source": "s", "sourceKey": "p"})  # fmt: skip
        client.post(
            f"/api/discussions/{done['id']}/issue", {"planDigest": plan_digest(PLAN), "title": "T"}
        )

        listed = hangar("discuss", "list", env=env)
        assert listed.returncode == 0, listed.stderr
        assert open_one["id"][:8] in listed.stdout and done["id"][:8] not in listed.stdout
        everything = hangar("ds", "list", "--all", env=env)
        assert done["id"][:8] in everything.stdout and "HGR-1" in everything.stdout
        as_json = json.loads(hangar("discuss", "list", "--json", env=env).stdout)
        assert [d["id"] for d in as_json["discussions"]] == [open_one["id"]]

        shown = hangar("discuss", "show", open_one["id"][:8], env=env)
        assert shown.returncode == 0, shown.stderr
        text = shown.stdout
        assert text.index("You:\n  How do we cache?") < text.index("codex:\n  With a table.")
        assert "Plan:\n  # Cache the index" in text
        assert hangar("discuss", "show", "ffffffff", env=env).returncode == 1
        client.close()


def test_refusals_before_anything_starts() -> None:
    """A CLI without a discussion mode, a missing command, a command not after `--`: clear
    usage errors (exit 2) without contacting a hub (none runs here); `ds` answers the same
    (LR-007)."""
    env = {"PATH": os.environ["PATH"], "HANGAR_SERVER_URL": "http://127.0.0.1:9"}
    for command in ("discuss", "ds"):
        refused = hangar(command, "--", "opencode", env=env)
        assert refused.returncode == 2 and "opencode" in refused.stderr, refused.stderr
        assert "cannot reach the hub" not in refused.stderr
        assert "after `--`" in hangar(command, "codex", env=env).stderr
        assert "after `--`" in hangar(command, env=env).stderr


def test_a_cli_that_cannot_start_leaves_no_discussion(hangar_home: Path) -> None:
    """Bad input: an agent command that is not there is a clear error before the hub is
    asked to start a discussion."""
    with running_hub() as hub:
        env = {**os.environ, "HANGAR_SERVER_URL": hub.url}
        done = hangar("discuss", "--", str(hangar_home / "no-such" / "claude"), env=env)
        assert done.returncode == 1 and "not found on PATH" in done.stderr, done.stderr
        client = HubClient(hub.url, hub.token(hangar_home), timeout=10)
        assert client.get("/api/discussions")["discussions"] == []
        client.close()
