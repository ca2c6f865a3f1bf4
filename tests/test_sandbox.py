"""The loopback-only sandbox: interfaces, DNS sink, private mounts, PTY, process cleanup."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.dns_sink import DnsSink, failure_reply, parse_question
from hangar.testing.sandbox import Sandbox
from hangar.testing.scenarios import Workspace, scenario_from_dict

ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
PY = "python3"


def query(name: str, qtype: int = 1) -> bytes:
    labels = b"".join(bytes([len(p)]) + p.encode() for p in name.split("."))
    return (
        b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00"
        + labels
        + b"\x00"
        + bytes([0, qtype, 0, 1])
    )


def test_dns_sink_logs_the_name_and_refuses(tmp_path: Path) -> None:
    assert parse_question(query("api.example.org", 28)) == ("api.example.org", 28)
    assert parse_question(b"\x00\x01") is None
    reply = failure_reply(query("a.b"))
    assert reply[:2] == b"\x12\x34" and reply[3] & 0x0F == 5  # same id, REFUSED
    sink = DnsSink(tmp_path / "dns.jsonl", port=0)
    sink.start()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
        client.settimeout(5)
        client.sendto(query("registry.npmjs.org"), ("127.0.0.1", sink.port))
        answer, _ = client.recvfrom(512)
    sink.close()
    assert answer[3] & 0x0F == 5
    logged = json.loads((tmp_path / "dns.jsonl").read_text())
    assert (logged["name"], logged["qtype"]) == ("registry.npmjs.org", 1)


def test_only_loopback_exists_and_nothing_leaves_it(sandbox: Sandbox) -> None:
    probe = """
import json, os, socket, time
result = {"interfaces": [name for _, name in socket.if_nameindex()]}
s = socket.socket(); s.settimeout(3)
try:
    s.connect(("1.1.1.1", 443)); result["connect"] = "connected"
except OSError as e:
    result["connect"] = e.errno
start = time.monotonic()
try:
    socket.getaddrinfo("registry.npmjs.org", 443); result["dns"] = "resolved"
except socket.gaierror as e:
    result["dns"] = "failed"
result["dns_seconds"] = time.monotonic() - start
result["resolv"] = open("/etc/resolv.conf").read()
print(json.dumps(result))
"""
    done = sandbox.run([PY, "-c", probe], cwd="/", env=ENV, check=True)
    result = json.loads(done.stdout)
    assert result["interfaces"] == ["lo"]
    assert result["connect"] == 101  # ENETUNREACH: there is no route off the box
    assert result["dns"] == "failed" and result["dns_seconds"] < 2
    assert result["resolv"].startswith("nameserver 127.0.0.1\n")
    assert "registry.npmjs.org" in [q["name"] for q in sandbox.dns_queries()]


def test_the_test_process_reaches_the_fake_model_inside(sandbox: Sandbox) -> None:
    sandbox.load(scenario_from_dict({"name": "t", "turns": [{"text": "hi"}]}))
    status, body = sandbox.http("GET", sandbox.port, "/v1/models")
    assert status == 200 and json.loads(body)["data"][0]["id"] == "fake-model"
    assert sandbox.requests()[-1]["client"] == "127.0.0.1"


def test_home_mount_stays_inside_the_namespace(tmp_path: Path) -> None:
    with Sandbox(tmp_path / "box", home_mount="/home") as box:
        home = box.host_path("/home/demo")
        home.mkdir(parents=True)
        (home / "file.txt").write_text("inside")
        done = box.run(["cat", "/home/demo/file.txt"], cwd="/home/demo", env=ENV, check=True)
        assert done.stdout == b"inside"
        assert not Path("/home/demo/file.txt").exists()  # the host's /home is untouched
    assert box.namespace_pids() == []


def test_close_ends_every_process_including_orphans(tmp_path: Path) -> None:
    box = Sandbox(tmp_path / "box").start()
    leader = box.spawn(["sh", "-c", "sleep 300 & sleep 300"], cwd="/", env=ENV)
    orphan = box.run(
        [
            PY,
            "-c",
            "import subprocess as s;print(s.Popen(['sleep', '300'], "
            "start_new_session=True, stdout=s.DEVNULL, stderr=s.DEVNULL).pid)",
        ],
        cwd="/",
        env=ENV,
        check=True,
    )
    orphan_pid = int(orphan.stdout)
    deadline = time.monotonic() + 10
    while len(box.namespace_pids()) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)  # waiting for the shell to fork its children
    running = box.namespace_pids()
    assert orphan_pid in running and leader.pid in running and len(running) >= 4
    box.close()
    assert box.namespace_pids() == []
    assert leader.poll() is not None
    for pid in running:
        assert not Path(f"/proc/{pid}").exists() or _is_zombie(pid)


def _is_zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True


def test_pty_process_takes_keystrokes(sandbox: Sandbox) -> None:
    script = (
        "import sys; print('ready', flush=True); line = sys.stdin.readline();"
        "print('got', line.strip(), sys.stdin.isatty(), flush=True)"
    )
    process = sandbox.spawn_pty([PY, "-c", script], cwd="/", env=ENV, rows=30, cols=100)
    process.expect("ready")
    process.send("hello\r")
    process.expect(r"got hello True")
    assert os.get_terminal_size(process.master_fd) == os.terminal_size((100, 30))
    process.close()


def test_workspaces_are_real_git_repositories_and_worktrees(tmp_path: Path) -> None:
    with AgentSandbox(tmp_path / "box", user="demo") as box:
        spec = Workspace(git=True, files={"README.md": "# shop\n"}, worktree="fix-cart")
        tree = box.workspace("code/shop", spec)
        assert str(tree) == "/home/demo/code/shop.worktrees/fix-cart"
        env = {**ENV, "HOME": "/home/demo"}
        show = box.sandbox.run(
            ["git", "-C", str(tree), "log", "--format=%an %s", "--branches"], cwd="/", env=env
        )
        assert show.stdout.decode().strip() == "Demo User Initial commit"
        branch = box.sandbox.run(["git", "branch", "--show-current"], cwd=tree, env=env)
        assert branch.stdout.decode().strip() == "fix-cart"
        assert (box.host(tree) / "README.md").read_text() == "# shop\n"
        assert (box.host("/home/demo/code/shop") / ".git").is_dir()
    assert box.sandbox.namespace_pids() == []
