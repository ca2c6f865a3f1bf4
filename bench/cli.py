"""CLI benchmark: what a user waits for, in whole processes.

    python bench/cli.py --json [--runs 15] [--sessions 2000] [--mb 61] [--agentsview PATH]

Every figure is the median wall time of fresh ``hangar`` processes (bytecode written by a first
untimed run, as on a user's machine), next to the baseline measured in the same run: the
interpreter's own start (``python -c pass``) and ``import click``.

* ``start`` — ``hangar --help`` and ``hangar version`` (targets ≤ 80 ms);
* ``tasks_list_2000`` — ``hangar tasks list --json`` over a generated home of ``--sessions``
  small Codex sessions whose index exists (target ≤ 200 ms);
* ``peer_ratio`` — from an empty state (no index) to the first 50 messages of one generated
  ~61 MB session (the files of ``bench/transcripts.py``), Codex and Claude: ``hangar tasks
  list --json`` then ``hangar tasks show ID --json --limit 50``, against AgentsView doing the
  same (``agentsview session list --json`` then ``agentsview session messages ID --json
  --limit 50 --direction desc``, its background server stopped afterwards) on the same file.
  Target: hangar ≤ 0.25 × AgentsView. The peer is not part of this project: ``make bench``
  installs the version pinned in ``bench/requirements.txt`` into its own venv,
  ``bench/.peers``, which is used when present; ``--agentsview PATH`` (or
  ``$HANGAR_BENCH_AGENTSVIEW``) names another binary. Without any the comparison is skipped
  and says so, and hangar's own times are still printed.

Everything lives in a temp dir that is removed afterwards; processes started here are ended
by their PID.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from transcripts import codex_lines, generate  # a sibling bench script

_SCRIPT = Path(sys.executable).parent / "hangar"
HANGAR = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "hangar"]
"""The ``hangar`` command as a user runs it (the installed entry script)."""
CLAUDE_SESSION = "0b0e0b0e-0000-4000-8000-000000000001"
CODEX_THREAD = "019e1625-789d-76c0-80ab-000000000001"
START_TARGET_MS = 80
LIST_TARGET_MS = 200
PEER_TARGET = 0.25
PINNED_PEER = Path(__file__).resolve().parent / ".peers" / "bin" / "agentsview"
"""AgentsView as ``make bench-peers`` installs it (bench/requirements.txt)."""


def clean_env(root: Path) -> dict[str, str]:
    """An environment whose homes all live under ``root`` (and that writes bytecode)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HANGAR_", "AGENTSVIEW_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for var in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "CONTINUE_GLOBAL_DIR", "GEMINI_CLI_HOME"):
        env.pop(var, None)
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        HANGAR_HOME=str(root / "hangar"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        XDG_CACHE_HOME=str(home / ".cache"),
    )
    return env


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Wall seconds of one process, and its stdout (it must succeed)."""
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return seconds, done.stdout


def median_ms(cmd: list[str], env: dict[str, str], runs: int) -> float:
    timed(cmd, env)  # writes bytecode, warms the OS cache
    return statistics.median(timed(cmd, env)[0] for _ in range(runs)) * 1000


def start_figures(root: Path, runs: int) -> dict[str, Any]:
    env = clean_env(root / "start")
    python = median_ms([sys.executable, "-c", "pass"], env, runs)
    click = median_ms([sys.executable, "-c", "import click"], env, runs)
    help_ms = median_ms([*HANGAR, "--help"], env, runs)
    version_ms = median_ms([*HANGAR, "version"], env, runs)
    return {
        "python_start_ms": round(python, 1),
        "import_click_ms": round(click, 1),
        "help_ms": round(help_ms, 1),
        "version_ms": round(version_ms, 1),
        "help_over_python": round(help_ms / python, 2),
        "version_over_python": round(version_ms / python, 2),
    }


def codex_home_of(count: int, home: Path) -> None:
    """``count`` small Codex sessions, as bench/transcripts.py's list benchmark writes them."""
    day = home / ".codex" / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    rng = random.Random(7)
    for i in range(count):
        thread = f"019e1625-789d-76c0-80ab-{i:012d}"
        lines = [
            {"type": "session_meta", "payload": {"id": thread, "cwd": f"/w/p{i % 20}"}},
            *codex_lines(rng, i + 1)[:8],
        ]
        body = b"".join(json.dumps(x).encode() + b"\n" for x in lines)
        (day / f"rollout-2026-11-30T00-00-00-{thread}.jsonl").write_bytes(body)


def list_figures(root: Path, sessions: int, runs: int) -> dict[str, Any]:
    env = clean_env(root / "list")
    codex_home_of(sessions, Path(env["HOME"]))
    python = median_ms([sys.executable, "-c", "pass"], env, runs)
    first, out = timed([*HANGAR, "tasks", "list", "--json"], env)  # builds the index
    listed = len(json.loads(out)["tasks"])
    list_ms = median_ms([*HANGAR, "tasks", "list", "--json"], env, runs)
    return {
        "sessions": listed,
        "first_list_s": round(first, 2),
        "list_ms": round(list_ms, 1),
        "python_start_ms": round(python, 1),
        "list_over_python": round(list_ms / python, 2),
    }


def place(kind: str, file: Path, home: Path) -> None:
    """Hard-link (or copy) the generated session where the agent itself keeps it."""
    if kind == "codex":
        folder = home / ".codex" / "sessions" / "2026" / "05" / "11"
        target = folder / f"rollout-2026-05-11T00-00-00-{CODEX_THREAD}.jsonl"
    else:
        folder = home / ".claude" / "projects" / "-w-p"
        target = folder / f"{CLAUDE_SESSION}.jsonl"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        os.link(file, target)
    except OSError:
        shutil.copyfile(file, target)


def hangar_first_page(kind: str, file: Path, root: Path) -> float:
    """Seconds from an empty state to the first 50 messages: list, then show."""
    env = clean_env(root)
    place(kind, file, Path(env["HOME"]))
    list_s, out = timed([*HANGAR, "tasks", "list", "--json"], env)
    task = json.loads(out)["tasks"][0]["localTaskId"]
    show_s, page = timed([*HANGAR, "tasks", "show", task, "--json", "--limit", "50"], env)
    assert len(json.loads(page)["messages"]) == 50
    return list_s + show_s


def peer_first_page(binary: str, kind: str, file: Path, root: Path) -> float:
    """AgentsView from an empty data dir, ``session list`` then ``session messages``; one more
    try (in a fresh data dir) when its own background server does not answer in time, as it
    sometimes does not on a loaded machine."""
    try:
        return _peer_once(binary, kind, file, root)
    except RuntimeError as exc:
        print(f"agentsview failed once, trying again: {exc}", file=sys.stderr)
        return _peer_once(binary, kind, file, root.with_name(root.name + "-again"))


def _peer_once(binary: str, kind: str, file: Path, root: Path) -> float:
    env = clean_env(root)
    env.update(
        AGENTSVIEW_DATA_DIR=str(root / "agentsview"),
        AGENTSVIEW_TELEMETRY_ENABLED="0",
        DO_NOT_TRACK="1",
    )
    place(kind, file, Path(env["HOME"]))
    try:
        list_s, out = timed([binary, "session", "list", "--json"], env)
        session = json.loads(out)["sessions"][0]["id"]
        messages = ["session", "messages", session, "--json", "--limit", "50"]
        show_s, page = timed([binary, *messages, "--direction", "desc"], env)
        assert len(json.loads(page)["messages"]) == 50
        return list_s + show_s
    finally:
        stop_peer_daemon(binary, env, root / "agentsview")


def stop_peer_daemon(binary: str, env: dict[str, str], data: Path) -> None:
    """Stop the background server ``session list`` started: its own ``daemon stop``, then
    SIGTERM to the PID it recorded if it is still there."""
    subprocess.run([binary, "daemon", "stop"], env=env, capture_output=True, check=False)
    for record in data.glob("daemon.*.json"):
        try:
            pid = int(json.loads(record.read_text()).get("pid") or record.stem.split(".")[1])
        except (ValueError, OSError, IndexError):
            continue
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                break
            time.sleep(0.1)


def peer_figures(root: Path, megabytes: float, rounds: int, peer: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    version = None
    if peer:
        done = subprocess.run([peer, "version"], capture_output=True, text=True, check=False)
        version = (done.stdout or done.stderr).strip().splitlines()[0] if done.stdout else None
    for kind in ("codex", "claude"):
        file = root / f"{kind}.jsonl"
        generate(file, kind, megabytes)
        hangar = [hangar_first_page(kind, file, root / f"h-{kind}-{n}") for n in range(rounds)]
        figures: dict[str, Any] = {
            "file_mb": round(file.stat().st_size / 2**20, 1),
            "hangar_s": round(statistics.median(hangar), 3),
        }
        if peer:
            runs = [
                peer_first_page(peer, kind, file, root / f"p-{kind}-{n}") for n in range(rounds)
            ]
            figures["agentsview_s"] = round(statistics.median(runs), 3)
            figures["ratio"] = round(figures["hangar_s"] / figures["agentsview_s"], 3)
        out[kind] = figures
        file.unlink()
    out["agentsview"] = version or "skipped: pass --agentsview PATH to compare with AgentsView"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--runs", type=int, default=15, help="processes per start figure")
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--mb", type=float, default=61.0)
    parser.add_argument("--rounds", type=int, default=3, help="empty-state runs per file")
    pinned = str(PINNED_PEER) if PINNED_PEER.exists() else None
    parser.add_argument("--agentsview", default=os.environ.get("HANGAR_BENCH_AGENTSVIEW") or pinned)
    args = parser.parse_args()
    peer = shutil.which(args.agentsview) if args.agentsview else None
    if args.agentsview and peer is None:
        parser.error(f"--agentsview {args.agentsview}: no such executable")
    with tempfile.TemporaryDirectory(prefix="hangar-bench-cli-") as tmp:
        root = Path(tmp)
        figures: dict[str, Any] = {
            "start": start_figures(root, args.runs),
            "tasks_list_2000": list_figures(root, args.sessions, args.runs),
            "peer_ratio": peer_figures(root, args.mb, args.rounds, peer),
            "load_average_1m": round(os.getloadavg()[0], 2),
        }
    start, listing, ratio = figures["start"], figures["tasks_list_2000"], figures["peer_ratio"]
    targets: dict[str, bool | None] = {
        "help_le_80ms": start["help_ms"] <= START_TARGET_MS,
        "version_le_80ms": start["version_ms"] <= START_TARGET_MS,
        "tasks_list_2000_le_200ms": listing["list_ms"] <= LIST_TARGET_MS,
    }
    for kind in ("codex", "claude"):
        value = ratio[kind].get("ratio")
        targets[f"peer_ratio_{kind}_le_0_25"] = None if value is None else value <= PEER_TARGET
    figures["targets"] = targets
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
    sys.exit(0 if all(v is not False for v in targets.values()) else 1)


if __name__ == "__main__":
    main()
