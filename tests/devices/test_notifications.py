"""Final replies delivered through Apprise to a local webhook receiver; /notify commands."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx

from hub.sessions import ClaudeSession  # tests/hub, a sibling package

from .kit import Device, ThreadHub, devices, hub_thread, wait_until

SECRET = "im-webhook-secret"
SLACK = "slack-signing-secret"


@contextmanager
def receiver() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A JSON webhook on 127.0.0.1 that records what it receives."""
    received: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            received.append(json.loads(self.rfile.read(length)))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"json://127.0.0.1:{server.server_address[1]}/hook", received
    finally:
        server.shutdown()
        server.server_close()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _command(hub: ThreadHub, text: str, secret: str = SECRET) -> httpx.Response:
    body = json.dumps({"text": text})
    stamp = str(int(time.time()))
    mac = hmac.new(secret.encode(), f"{stamp}.{body}".encode(), hashlib.sha256).hexdigest()
    headers = {
        "X-Hangar-Timestamp": stamp,
        "X-Hangar-Signature": "v1=" + mac,
        "Content-Type": "application/json",
    }
    with httpx.Client(base_url=hub.url, trust_env=False) as http:
        return http.post("/hooks/im/command", content=body, headers=headers)


def _slack(hub: ThreadHub, command: str, text: str) -> httpx.Response:
    body = urlencode({"command": command, "text": text, "user_id": "U1", "channel_id": "C1"})
    stamp = str(int(time.time()))
    mac = hmac.new(SLACK.encode(), f"v0:{stamp}:{body}".encode(), hashlib.sha256).hexdigest()
    headers = {
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": "v0=" + mac,
        "Content-Type": "application/x-www-form-urlencoded",
    }
    with httpx.Client(base_url=hub.url, trust_env=False) as http:
        return http.post("/hooks/im/slack", content=body, headers=headers)


def _api(hub: ThreadHub, path: str, body: Any = None) -> Any:
    with hub.client() as http:
        response = http.get(path) if body is None else http.post(path, json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_im_commands_turn_notifications_on_and_off(tmp_path: Path) -> None:
    """RW-326, RW-327: /notify on|off|status and /通知 开|关|状态, from an authenticated
    generic webhook and a signed Slack slash command; unsigned or stale ones are refused."""
    env = {"HANGAR_IM_WEBHOOK_SECRET": SECRET, "HANGAR_SLACK_SIGNING_SECRET": SLACK}
    with hub_thread(tmp_path / "hub", **env) as hub:
        assert _api(hub, "/api/notifications")["enabled"] is False
        on = _command(hub, "/notify on")
        assert on.json() == {
            "text": "runtime task notifications are on (0 target(s))",
            "enabled": True,
        }
        assert _api(hub, "/api/notifications")["enabled"] is True
        status = _command(hub, "/通知 状态").json()
        assert status["text"].startswith("运行时任务通知已开启")
        off = _slack(hub, "/通知", "关")
        assert off.json() == {
            "response_type": "ephemeral",
            "text": "运行时任务通知已关闭（0 个通知目标）",
        }
        assert _api(hub, "/api/notifications")["enabled"] is False
        assert _slack(hub, "/notify", "status").json()["text"].endswith("are off (0 target(s))")
        assert _command(hub, "/notify maybe").json()["text"] == "usage: /notify on | off | status"
        forged = _command(hub, "/notify on", secret="wrong")
        assert forged.status_code == 401
        assert forged.json()["error"]["code"] == "unauthorized"
        assert _api(hub, "/api/notifications")["enabled"] is False


def _deliveries(hub: ThreadHub) -> list[dict[str, Any]]:
    deliveries: list[dict[str, Any]] = _api(hub, "/api/notifications")["deliveries"]
    return deliveries


def test_final_replies_reach_the_webhook_once(tmp_path: Path) -> None:
    """RW-324, RW-329, RW-331, RW-332: a remote device's own watcher sends its task's final
    reply over its WebSocket; the hub delivers it through Apprise to the JSON webhook once,
    also when the same reply is reported again (a send started from hangar, or a second
    look); running replies and updates carrying a workspace path deliver nothing."""
    with receiver() as (url, received), hub_thread(tmp_path / "hub") as hub:
        _api(hub, "/api/notifications/targets", {"name": "hook", "url": url})
        _api(hub, "/api/notifications/global", {"enabled": True})
        laptop = Device(
            "laptop", tmp_path / "laptop", "127.0.0.2", [hub.url], hub.add_device("laptop")
        )
        (laptop.home / ".claude" / "projects").mkdir(parents=True)
        with devices(laptop):
            wait_until(lambda: hub.ctx.device_infos(), "laptop online")
            session = ClaudeSession(laptop.home, "efefefef-1111-4111-8111-000000000001", "/srv/app")
            session.user("Build the release")
            session.assistant("The release is built: version 2.0.")
            wait_until(lambda: received, "the webhook")
            assert [(m["title"], m["message"]) for m in received] == [
                ("Build the release · done", "The release is built: version 2.0.")
            ]
            delivered = _deliveries(hub)
            assert [(d["status"], d["attempts"]) for d in delivered] == [("sent", 1)]
            device_id = delivered[0]["deviceId"]
            update = {
                "localTaskId": delivered[0]["localTaskId"],
                "status": "done",
                "content": "The release is built: version 2.0.",
                "updateKey": delivered[0]["updateKey"],
                "title": "Build the release",
            }
            hub.ctx.device_event(device_id, "runtime.tasks.updated", update)  # as a send would
            hub.ctx.device_event(
                device_id,
                "runtime.tasks.updated",
                {**update, "status": "streaming", "updateKey": "other"},
            )
            hub.ctx.device_event(
                device_id,
                "runtime.tasks.updated",
                {**update, "updateKey": "k2", "workspacePath": "/srv/app"},
            )
            # The hub queues synchronously: whatever it refused was never queued.
            assert len(_deliveries(hub)) == 1
            session.user("Anything else?")  # a new turn, no reply yet: nothing to announce
            session.assistant("Nothing else.")
            wait_until(lambda: len(received) == 2, "the second reply")
            assert [m["message"] for m in received] == [
                "The release is built: version 2.0.",
                "Nothing else.",
            ]
            assert [d["status"] for d in _deliveries(hub)] == ["sent", "sent"]


def test_a_task_target_gets_only_its_task_and_a_dead_target_is_retried(tmp_path: Path) -> None:
    """RW-325, RW-328: a target of scope ``task`` receives only the tasks subscribed to it
    (keyed by deviceId + localTaskId), also while the global switch is off; a target that is
    down is retried with backoff and its failure is visible, without holding up anything."""
    with receiver() as (url, received), hub_thread(tmp_path / "hub", serve_executor=True) as hub:
        home = tmp_path / "hub" / "home"
        (home / ".claude" / "projects").mkdir(parents=True)
        _api(hub, "/api/notifications/targets", {"name": "task-hook", "url": url, "scope": "task"})
        dead = f"json://127.0.0.1:{_closed_port()}/hook?cto=1&rto=1"
        _api(hub, "/api/notifications/targets", {"name": "dead", "url": dead, "scope": "task"})
        watched = ClaudeSession(home, "12121212-1111-4111-8111-000000000001", "/srv/watched")
        watched.user("Watched task")
        other = ClaudeSession(home, "34343434-1111-4111-8111-000000000002", "/srv/other")
        other.user("Other task")
        device_id = hub.local.executor.device.device_id
        task_id = wait_until(
            lambda: next(
                (
                    t.local_task_id
                    for t in hub.local.executor.list_tasks()
                    if t.title == "Watched task"
                ),
                None,
            ),
            "the watched task listed",
        )
        for target in ("task-hook", "dead"):
            _api(
                hub,
                "/api/notifications/subscriptions",
                {"target": target, "deviceId": device_id, "localTaskId": task_id},
            )
        other.assistant("Other reply.")
        watched.assistant("Watched reply.")
        wait_until(lambda: received, "the subscribed reply")
        wait_until(
            lambda: any(d["target"] == "dead" and d["attempts"] >= 2 for d in _deliveries(hub)),
            "two tries of the dead target",
        )
        assert [m["message"] for m in received] == ["Watched reply."]
        by_target = {d["target"]: d for d in _deliveries(hub)}
        assert set(by_target) == {"task-hook", "dead"}
        assert by_target["dead"]["status"] == "retrying"
        assert "Connection error" in by_target["dead"]["lastError"]
        assert by_target["dead"]["nextAttemptAt"] is not None
        with hub.client() as http:
            http.post("/login", data={"token": hub.token})
            page = http.get("/notifications").text
        assert "retrying" in page and "Connection error" in page
