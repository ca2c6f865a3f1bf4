"""Usage benchmark: counting the tokens of a 2,000-session home.

    python bench/usage.py --json [--sessions 2000]

Writes a temp home with ``--sessions`` Codex rollouts in 0.171's format (a ``session_meta``,
turns with ``turn_context``, messages, tool calls, a ``token_usage_record`` and a
``token_count`` per model call; about 40 lines each) plus a tenth as many Claude sessions,
lists them once (the LocalTask index exists, as it does on a user's device), then measures:

* ``scan_s`` — a cold usage count in-process (a fresh executor: nothing cached; every file
  read), median of 3; target ≤ 0.5 s;
* ``baseline_s`` — the plain pass a naive counter would make: ``json.loads`` of every line of
  every file (same files, same run); ``scan_ratio`` = scan / baseline;
* ``warm_s`` — the same count again in the same process (files unchanged: nothing read);
* ``process_s`` — ``hangar usage --json`` as a whole process, process start included.

Everything lives in a temp dir that is removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET_SCAN_S = 0.5


def _usage(n: int) -> dict[str, int]:
    return {
        "input_tokens": 900 + n,
        "cached_input_tokens": 600,
        "cache_write_input_tokens": 0,
        "output_tokens": 120 + n % 50,
        "reasoning_output_tokens": 40,
        "total_tokens": 1020 + n + n % 50,
    }


def codex_rollout(rng: random.Random, index: int) -> list[dict[str, Any]]:
    thread = f"0199bbbb-0000-7000-8000-{index:012d}"
    at = f"2026-11-{1 + index % 28:02d}T10:00:00.000Z"
    lines: list[dict[str, Any]] = [
        {
            "timestamp": at,
            "type": "session_meta",
            "payload": {"id": thread, "timestamp": at, "cwd": f"/srv/p{index % 20}"},
        }
    ]
    total = 0
    for turn in range(rng.randint(2, 4)):
        turn_id = f"{thread}-t{turn}"
        lines.append({"timestamp": at, "type": "turn_context", "payload": {"model": "gpt-5-codex"}})
        lines.append(
            {
                "timestamp": at,
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "fix the failing test " * 8}],
                },
            }
        )
        for call in range(rng.randint(2, 4)):
            usage = _usage(rng.randint(0, 500))
            total += usage["total_tokens"]
            lines += [
                {
                    "timestamp": at,
                    "type": "response_item",
                    "payload": {
                        "type": "function_call",
                        "name": "exec_command",
                        "arguments": json.dumps({"cmd": "pytest -q tests/test_cart.py"}),
                        "call_id": f"call_{turn}_{call}",
                    },
                },
                {
                    "timestamp": at,
                    "type": "response_item",
                    "payload": {
                        "type": "function_call_output",
                        "call_id": f"call_{turn}_{call}",
                        "output": "Process exited with code 0\n" + "ok\n" * 20,
                    },
                },
                {
                    "timestamp": at,
                    "type": "token_usage_record",
                    "payload": {
                        "thread_id": thread,
                        "turn_id": turn_id,
                        "response_id": f"resp_{index}_{turn}_{call}",
                        "usage": usage,
                    },
                },
                {
                    "timestamp": at,
                    "type": "event_msg",
                    "payload": {
                        "type": "token_count",
                        "info": {
                            "total_token_usage": {**usage, "total_tokens": total},
                            "last_token_usage": usage,
                        },
                    },
                },
            ]
        lines.append(
            {
                "timestamp": at,
                "type": "event_msg",
                "payload": {"type": "agent_message", "message": "Done: the test passes now."},
            }
        )
    return lines


def claude_session(index: int) -> list[dict[str, Any]]:
    session = f"22222222-3333-4444-8555-{index:012d}"
    base = {"sessionId": session, "cwd": f"/srv/c{index % 5}", "userType": "external"}
    lines: list[dict[str, Any]] = [
        {
            **base,
            "type": "user",
            "uuid": "u0",
            "timestamp": "2026-11-20T09:00:00.000Z",
            "message": {"role": "user", "content": "explain the cart module"},
        },
    ]
    for n in range(6):
        for block in ("thinking", "text"):
            lines.append(
                {
                    **base,
                    "type": "assistant",
                    "uuid": f"a{n}{block}",
                    "timestamp": "2026-11-20T09:00:01.000Z",
                    "message": {
                        "id": f"msg_{index}_{n}",
                        "model": "claude-sonnet-4-5",
                        "content": [{"type": block, "text": "the cart sums its lines " * 6}],
                        "usage": {
                            "input_tokens": 20,
                            "cache_read_input_tokens": 4000,
                            "cache_creation_input_tokens": 300,
                            "output_tokens": 80,
                        },
                    },
                }
            )
    return lines


def write_home(home: Path, sessions: int) -> list[Path]:
    rng = random.Random(7)
    paths: list[Path] = []
    day = home / ".codex" / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    for i in range(sessions):
        thread = f"0199bbbb-0000-7000-8000-{i:012d}"
        path = day / f"rollout-2026-11-30T10-00-00-{thread}.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in codex_rollout(rng, i)))
        paths.append(path)
    claude = home / ".claude" / "projects" / "-srv-c"
    claude.mkdir(parents=True)
    for i in range(sessions // 10):
        path = claude / f"22222222-3333-4444-8555-{i:012d}.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in claude_session(i)))
        paths.append(path)
    return paths


def baseline(paths: list[Path]) -> float:
    started = time.perf_counter()
    for path in paths:
        with path.open("rb") as handle:
            for line in handle:
                json.loads(line)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--sessions", type=int, default=2000)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="hangar-bench-usage-"))
    try:
        home = root / "home"
        env = {
            **os.environ,
            "HOME": str(home),
            "HANGAR_HOME": str(root / "hangar-home"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CONFIG_HOME": str(home / ".config"),
        }
        for var in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "CONTINUE_GLOBAL_DIR", "GEMINI_CLI_HOME"):
            env.pop(var, None)
        os.environ.clear()
        os.environ.update(env)
        paths = write_home(home, args.sessions)
        size_mb = sum(p.stat().st_size for p in paths) / 1e6

        from hangar.agents.launch import NoLauncher
        from hangar.executor.service import Executor

        listing = Executor.open(launcher=NoLauncher())
        listing.list_tasks(include_archived=True)  # the index exists, as on a user's device
        listing.close()

        scans: list[float] = []
        report: dict[str, Any] = {}
        for _ in range(3):
            executor = Executor.open(launcher=NoLauncher())
            started = time.perf_counter()
            report = executor.handle("runtime.usage.summary", {"by": "project"})
            scans.append(time.perf_counter() - started)
            started = time.perf_counter()
            executor.handle("runtime.usage.summary", {"by": "project"})
            warm = time.perf_counter() - started
            executor.close()
        base = statistics.median(baseline(paths) for _ in range(3))
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "hangar", "usage", "--json"],
            env=env,
            check=True,
            capture_output=True,
        )
        process = time.perf_counter() - started
        scan = statistics.median(scans)
        figures = {
            "sessions": len(paths),
            "corpus_mb": round(size_mb, 1),
            "calls_counted": report["total"]["calls"],
            "scan_s": round(scan, 3),
            "baseline_s": round(base, 3),
            "scan_ratio": round(scan / base, 3),
            "warm_s": round(warm, 4),
            "process_s": round(process, 3),
            "targets": {"scan_le_0_5_s": scan <= TARGET_SCAN_S},
        }
        print(json.dumps(figures, indent=2) if args.json else figures)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
