"""``hangar tasks send`` in a terminal: the whole CLI runs inside the sandbox, where the agent
CLIs are on its ``PATH``, and streams the reply."""

from __future__ import annotations

import json
import struct
import sys
import zlib
from pathlib import Path

import pytest

from hangar.testing.agent_clis import agent_clis_dir
from hangar.testing.agent_runs import AgentSandbox

from .test_codex_send import play

pytestmark = pytest.mark.real_agents


def png(width: int = 4, height: int = 4) -> bytes:
    """A real (tiny, grey) PNG image."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def hangar_cli(agent_sandbox: AgentSandbox, hangar_home: Path, *args: str) -> tuple[int, str, str]:
    env = agent_sandbox.env("codex")
    env["PATH"] = f"{agent_clis_dir() / 'node_modules' / '.bin'}:{env['PATH']}"
    env["HANGAR_HOME"] = str(hangar_home)
    done = agent_sandbox.sandbox.run(
        [sys.executable, "-m", "hangar", *args], cwd=agent_sandbox.homes.home, env=env, timeout=180
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def test_tasks_send_streams_the_reply_with_an_image(
    agent_sandbox: AgentSandbox, hangar_home: Path, tmp_path: Path
) -> None:
    """RW-283: ``--image`` goes to Codex as a ``localImage`` item (the model request carries an
    ``input_image``); the reply is printed and Codex records it; a missing model is refused."""
    run = agent_sandbox.run_agent("codex", "hello", "say hello")
    assert run.returncode == 0, run.stderr
    agent_sandbox.offer_codex_model()
    assert run.session_id
    code, out, err = hangar_cli(agent_sandbox, hangar_home, "tasks", "models", run.session_id)
    assert code == 0, err
    assert "fake-model" in out and "guidance" in out
    image = tmp_path / "screen.png"
    image.write_bytes(png())
    play(agent_sandbox, {"text": "I see the screenshot you sent."})
    code, out, err = hangar_cli(
        agent_sandbox,
        hangar_home,
        "tasks",
        "send",
        run.session_id,
        "What is on it?",
        "--model",
        "fake-model",
        "--image",
        str(image),
    )
    assert code == 0, err
    assert "I see the screenshot you sent." in out
    last = [r for r in agent_sandbox.sandbox.requests() if r["kind"] == "turn"][-1]
    sent = json.dumps(last["body"]["input"])
    assert "What is on it?" in sent and "input_image" in sent
    rollout = next(p for p in run.store_files if p.name.startswith("rollout-"))
    assert "I see the screenshot you sent." in rollout.read_text()
    code, out, err = hangar_cli(agent_sandbox, hangar_home, "tasks", "send", run.session_id, "hi")
    assert code == 2 and "--model" in err


def test_a_sent_image_reads_back_as_one_request_with_its_file_and_preview(
    agent_sandbox: AgentSandbox, hangar_home: Path, tmp_path: Path
) -> None:
    """RW-221, RW-222, RW-227, RW-228: Codex records an image turn twice (a response item with
    ``<image path=…>`` wrappers around the inline image, and a UserMessage item with a
    ``local_image``); read back, it is one request with the visible text, the file's name and
    path, and a checked data-URL preview of the readable file."""
    run = agent_sandbox.run_agent("codex", "hello", "say hello")
    assert run.returncode == 0, run.stderr
    agent_sandbox.offer_codex_model()
    assert run.session_id
    image = tmp_path / "screen.png"
    image.write_bytes(png())
    play(agent_sandbox, {"text": "A grey square."})
    send = ("tasks", "send", run.session_id, "What is on it?", "--model", "fake-model")
    code, out, err = hangar_cli(agent_sandbox, hangar_home, *send, "--image", str(image))
    assert code == 0, err
    code, out, err = hangar_cli(agent_sandbox, hangar_home, "tasks", "show", run.session_id)
    assert code == 0, err
    assert out.count("What is on it?") == 1 and "<image" not in out
    assert f"📎 screen.png  {image}" in out
    code, out, err = hangar_cli(
        agent_sandbox, hangar_home, "tasks", "show", run.session_id, "--json"
    )
    assert code == 0, err
    users = [m for m in json.loads(out)["messages"] if m["role"] == "user"]
    assert [m["content"] for m in users] == ["say hello", "What is on it?"]
    (attachment,) = users[-1]["attachments"]
    assert attachment["name"] == "screen.png" and attachment["path"] == str(image)
    assert attachment["status"] == "ready"
    assert attachment["localPreviewUrl"].startswith("data:image/png;base64,")
