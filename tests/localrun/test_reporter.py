"""Reporter: retry, spool, re-send; usage merging; redaction and the child environment."""

from __future__ import annotations

import stat
import threading
import time
from pathlib import Path
from typing import Any

from hangar.hub_client import HubClient
from hangar.localrun.environment import RunBinding, build_child_env
from hangar.localrun.hub_api import HttpRunApi, InMemoryRunApi
from hangar.localrun.reporter import RETRY_DELAYS, RunReporter, UsageReporter
from hangar.localrun.spool import Spool
from hangar.model.run_messages import RunMessage, UsageEntry
from hangar.redaction import redact_text, redact_value

from .conftest import TOKEN


def message(n: int, kind: str = "text") -> RunMessage:
    return RunMessage(kind, "test", f"thread:T:turn:U:agent:item{n}:text", content=f"m{n}")  # type: ignore[arg-type]


def wait_for(condition, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.02)


def api_with_run() -> InMemoryRunApi:
    api = InMemoryRunApi()
    api.runs["r1"] = {"id": "r1", "status": "running"}
    return api


def test_default_retry_schedule() -> None:
    """Reporter retries at 0.5, 1.5 and 3 s before spooling (anchors §A.3)."""
    assert RETRY_DELAYS == (0.5, 1.5, 3.0)


def test_posts_in_order_and_deduplicates(tmp_path: Path, live_hub: str) -> None:
    """LR-127/LR-159: the reporter writes run messages to the real hub, in order; a re-sent
    sourceKey is stored once (the hub answers 200 with the message it already had)."""
    with HubClient(live_hub, TOKEN) as client:
        issue = client.post("/api/issues", {"title": "Report to me"})
        run = client.post(f"/api/issues/{issue['key']}/local-runs", {"cliName": "codex"})
        reporter = RunReporter(HttpRunApi(client), run["id"], Spool(tmp_path / "spool"))
        for n in (1, 2, 1, 3):
            reporter.report(message(n))
        assert reporter.close(timeout=10) == 0
        stored = client.get(f"/api/local-runs/{run['id']}/messages")["messages"]
    assert [(m["seq"], m["content"]) for m in stored] == [(1, "m1"), (2, "m2"), (3, "m3")]
    assert (reporter.stats.posted, reporter.stats.deduplicated) == (3, 1)


class SlowHub:
    """The real hub's API, slow until ``gate`` opens (every post waits for it), counting the
    batches it is sent."""

    def __init__(self, api: HttpRunApi, gate: threading.Event) -> None:
        self.api, self.gate, self.server_url = api, gate, api.server_url
        self.batches: list[int] = []

    def post_message(self, run_id: str, message: dict[str, Any]) -> bool:
        self.gate.wait(10)
        return self.api.post_message(run_id, message)

    def post_messages(self, run_id: str, messages: list[dict[str, Any]]) -> list[bool]:
        self.gate.wait(10)
        self.batches.append(len(messages))
        return self.api.post_messages(run_id, messages)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.api, name)


def run_on(client: HubClient) -> str:
    issue = client.post("/api/issues", {"title": "Batches"})
    return str(client.post(f"/api/issues/{issue['key']}/local-runs", {"cliName": "x"})["id"])


def test_a_backlog_goes_in_order_batches_and_a_waiting_provider(
    tmp_path: Path, live_hub: str
) -> None:
    """What queued up behind a slow post goes out in batches, in order; with
    ``wait_when_full`` the provider waits for room instead of spooling (the spool would lose
    the order of a flood)."""
    with HubClient(live_hub, TOKEN) as client:
        run_id = run_on(client)
        gate = threading.Event()
        hub = SlowHub(HttpRunApi(client), gate)
        reporter = RunReporter(hub, run_id, Spool(tmp_path / "spool"), queue_size=8,  # type: ignore[arg-type]
                               wait_when_full=True)  # fmt: skip
        reporter.report(message(0))
        threading.Timer(0.5, gate.set).start()
        started = time.monotonic()
        for n in range(1, 301):
            reporter.report(message(n))
        waited = time.monotonic() - started
        assert reporter.close(timeout=30) == 0
        stored = client.get(f"/api/local-runs/{run_id}/messages", limit=5000)["messages"]
    assert [m["content"] for m in stored] == [f"m{n}" for n in range(301)]
    assert reporter.stats.spooled == 0 and reporter.stats.posted == 301
    assert waited >= 0.4  # the provider was held back while the hub was slow
    assert max(hub.batches) > 1  # what queued up went together


def test_a_refused_batch_is_resent_one_by_one(tmp_path: Path, live_hub: str) -> None:
    """One message the hub refuses (a sourceKey over its limit) costs only itself."""
    with HubClient(live_hub, TOKEN) as client:
        run_id = run_on(client)
        gate = threading.Event()
        hub = SlowHub(HttpRunApi(client), gate)
        reporter = RunReporter(hub, run_id, Spool(tmp_path / "spool"))  # type: ignore[arg-type]
        bad = RunMessage("text", "test", "k" * 600, content="too long a key")
        for item in (message(0), message(1), bad, message(3)):
            reporter.report(item)  # the slow hub holds the first post while the rest queue
        threading.Timer(0.3, gate.set).start()
        assert reporter.close(timeout=10) == 0
        stored = client.get(f"/api/local-runs/{run_id}/messages")["messages"]
    assert [m["content"] for m in stored] == ["m0", "m1", "m3"]
    assert reporter.stats.rejected == 1
    assert len(hub.batches) == 1 and hub.batches[0] >= 3  # the bad one came in a batch


def test_hub_down_spools_then_resends_exactly_once(tmp_path: Path) -> None:
    """Nothing lost: retries, then an atomic 0600 file per message, re-sent when back."""
    api = api_with_run()
    api.online = False
    spool = Spool(tmp_path / "spool")
    reporter = RunReporter(api, "r1", spool, retry_delays=(0.01, 0.01, 0.01), resync_interval=0.05)
    for n in range(1, 6):
        reporter.report(message(n))
    wait_for(lambda: spool.count("r1") == 5)
    assert reporter.degraded
    run_dir = spool.run_dir("r1")
    assert stat.S_IMODE(run_dir.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in run_dir.iterdir())
    posts = api.calls.count("post_message") + api.calls.count("post_messages")
    assert posts >= 4  # first try + 3 retries (a queued backlog goes as one batch)
    api.online = True
    wait_for(lambda: len(api.messages.get("r1", [])) == 5)
    reporter.report(message(6))
    assert reporter.close(timeout=5) == 0
    assert [m["content"] for m in api.messages["r1"]] == [f"m{n}" for n in range(1, 7)]
    assert spool.count() == 0


def test_close_while_down_leaves_spool_for_sync_pending(tmp_path: Path) -> None:
    """A run that ends while the hub is away leaves its spool; a later sync sends it once."""
    api = api_with_run()
    api.online = False
    spool = Spool(tmp_path / "spool")
    reporter = RunReporter(api, "r1", spool, retry_delays=(0.01,), resync_interval=0.05)
    for n in range(1, 4):
        reporter.report(message(n))
    usage = UsageReporter(api, "r1", spool, debounce=10)
    usage.add(UsageEntry("codex", "m", 10, 5))
    assert not usage.close()
    spool.put_status("r1", {"status": "completed", "exitCode": 0})
    assert reporter.close(timeout=1) == 5  # 3 messages + usage + final status
    assert spool.count("r1") == 5
    api.online = True
    result = spool.sync(api)
    assert (result.synced, result.remaining) == (5, 0)
    again = spool.sync(api)
    assert again.synced == 0
    assert len(api.messages["r1"]) == 3
    assert api.usage["r1"][0]["inputTokens"] == 10
    assert api.runs["r1"]["status"] == "completed"


def test_queue_full_goes_to_the_spool(tmp_path: Path) -> None:
    api = api_with_run()
    api.online = False
    spool = Spool(tmp_path / "spool")
    reporter = RunReporter(api, "r1", spool, retry_delays=(5.0,), queue_size=2)
    for n in range(1, 11):
        reporter.report(message(n))
    api.online = True
    reporter.close(timeout=5)
    assert sorted(m["content"] for m in api.messages["r1"]) == sorted(f"m{n}" for n in range(1, 11))


def test_usage_merged_per_provider_and_model(tmp_path: Path) -> None:
    api = api_with_run()
    usage = UsageReporter(api, "r1", Spool(tmp_path), debounce=0.05)
    usage.add(UsageEntry("claude", "opus", 10, 2, 1, 0))
    usage.add(UsageEntry("claude", "opus", 5, 1, 0, 3))
    usage.add(UsageEntry("claude", "haiku", 1, 1))
    wait_for(lambda: "r1" in api.usage)
    usage.close()
    by_model = {u["model"]: u for u in api.usage["r1"]}
    assert by_model["opus"]["inputTokens"] == 15 and by_model["opus"]["cacheWriteTokens"] == 3
    assert by_model["haiku"]["outputTokens"] == 1


def test_reported_messages_are_redacted(tmp_path: Path) -> None:
    api = api_with_run()
    reporter = RunReporter(api, "r1", Spool(tmp_path))
    secret = "ghp_" + "a" * 36
    reporter.report(
        RunMessage("tool_result", "t", "k", tool="exec_command", output=f"token {secret}")
    )
    reporter.close(timeout=5)
    assert secret not in str(api.messages["r1"])


def test_redaction_patterns() -> None:
    samples = {
        "AKIAABCDEFGHIJKLMNOP": "AKIA",
        "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----": "abc",
        "ghp_" + "x" * 36: "ghp_x",
        "gho_" + "y" * 36: "gho_y",
        "sk-proj-" + "z" * 30: "zzzz",
        "xoxb-1234567890-abcdef": "xoxb-1",
        "glpat-" + "q" * 20: "qqqq",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpM": "SflKx",
        "Authorization: Bearer abcdefghijklmnop": "abcdefghijklmnop",
        "postgres://app:hunter2secret@db:5432/x": "hunter2secret",
        "OPENAI_API_KEY=abcd1234efgh": "abcd1234efgh",
        "DB_PASSWORD: s3cretvalue": "s3cretvalue",
        "/home/alice/project": "alice",
        "/Users/bob/src": "bob",
    }
    for text, leaked in samples.items():
        redacted = redact_text(text)
        assert leaked not in redacted, (text, redacted)
        assert "****" in redacted
        assert redact_text(redacted) == redacted
    assert redact_text("Bearer abcdefghijklmnop").startswith("Bearer ")
    assert redact_value({"a": ["sk-" + "k" * 20, 3]}) == {"a": ["****", 3]}
    assert redact_text("plain words stay") == "plain words stay"


def test_child_env_drops_user_credentials() -> None:
    """LR-125: the child gets the run binding and a run-scoped token, never the user's."""
    parent = {
        "PATH": "/bin",
        "HANGAR_TOKEN": "user-token",
        "HANGAR_SERVER_URL": "http://elsewhere",
        "HANGAR_DEPLOY_SECRET": "x",
        "HANGAR_HOME": "/h",
        "OTHER": "kept",
    }
    binding = RunBinding("run1", "iss1", "HGR-1", "ws1", "http://127.0.0.1:1", "run-token")
    env = build_child_env(parent, binding)
    assert env["HANGAR_TOKEN"] == "run-token"
    assert "user-token" not in env.values()
    assert "HANGAR_DEPLOY_SECRET" not in env
    assert env["HANGAR_SERVER_URL"] == "http://127.0.0.1:1"
    assert env["HANGAR_ISSUE_KEY"] == "HGR-1" and env["HANGAR_RUN_ID"] == "run1"
    assert env["OTHER"] == "kept" and env["HANGAR_HOME"] == "/h"
