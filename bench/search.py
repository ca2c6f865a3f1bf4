"""Search benchmark: index a generated corpus of mixed agent sessions, then query it.

    python bench/search.py --json [--mb 1024] [--queries 200]

In a temp dir (deleted afterwards) it writes Codex rollouts and Claude Code sessions in their
real formats (sizes from 50 KB to 60 MB, a Zipf-distributed vocabulary of 20,000 words plus
Chinese and Japanese sentences), builds the search index the way ``hangar search`` does
(discovery into the LocalTask index, then the search indexer), and reports:

* ``index.mb_per_s`` — transcript megabytes indexed per second of wall time (target ≥ 100),
  with the CPU seconds of this process (discovery and index writes) and of the parse workers,
  and the load average: on a shared machine the wall figure says more about the neighbours.
  Baseline: ``json_pass_mb_per_s``, one ``json.loads`` of every line of the corpus in this
  process;
* ``index.one_parse`` — after the build, the executor's background indexer finds nothing to
  read (``index_pending`` → 0): the build's parses already gave the list its counts;
* ``query_p50_ms`` / ``query_p95_ms`` — ``runtime.tasks.search`` latency over a mix of common
  and rare words, phrases, prefixes and CJK queries, as ``hangar serve`` answers them: its
  session watcher armed, so a query rescans the agent homes only after a change (target p95
  ≤ 20 ms). Baseline: ``fts_count_p95_ms``, the bare FTS5 ``count(*)`` of the same queries'
  matches. ``unwatched_p95_ms``: the same queries with no watcher, each one rescanning the
  homes first (what one ``hangar search`` in a fresh process does once);
* ``append_first_after_build`` / ``append_warm`` — one turn appended to one session, then the
  index brought up to date: bytes read and files read. Right after a parallel first build the
  session's parse state lives in no process, so exactly that one file is read again; after
  that, only the appended bytes are read.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import msgspec

SEED = 20261130
CJK_SENTENCES = [
    "请帮我检查数据库迁移脚本是否正确",
    "全文搜索功能需要支持中文分词",
    "这个测试在持续集成环境里失败了",
    "日本語の検索機能をテストしてください",
    "設定ファイルを読み込めませんでした",
    "我们应该先写单元测试再重构代码",
]


def vocabulary(rng: random.Random, size: int = 20_000) -> list[str]:
    syllables = [a + b for a in "bcdfghjklmnprstvwz" for b in ("a", "e", "i", "o", "u", "ai")]
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


class Text:
    """Zipf-distributed words: a pre-sampled pool makes each draw a uniform pick."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.words = vocabulary(rng)
        weights = [1.0 / (rank + 1) for rank in range(len(self.words))]
        self.pool = rng.choices(self.words, weights, k=400_000)

    def words_(self, count: int) -> str:
        start = self.rng.randrange(0, len(self.pool) - count)
        return " ".join(self.pool[start : start + count])

    def prose(self, count: int) -> str:
        if self.rng.random() < 0.08:
            return self.rng.choice(CJK_SENTENCES) + " " + self.words_(count // 2)
        return self.words_(count)

    def output(self) -> str:
        lines = self.rng.randint(3, 60) if self.rng.random() < 0.9 else self.rng.randint(200, 800)
        return "\n".join(f"{i:4d}  {self.words_(self.rng.randint(4, 12))}" for i in range(lines))


def _stamp(turn: int) -> str:
    day, hour, minute, second = (
        1 + turn // 86400 % 28,
        turn // 3600 % 24,
        turn // 60 % 60,
        turn % 60,
    )
    return f"2026-10-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.000Z"


def codex_turn(text: Text, turn: int, cwd: str) -> list[dict[str, Any]]:
    rng, ts, tid = text.rng, _stamp(turn), f"turn-{turn:06d}"
    request = text.prose(rng.randint(8, 40))
    out: list[dict[str, Any]] = [
        {"timestamp": ts, "type": "event_msg", "payload": {"type": "task_started", "turn_id": tid}},
        {
            "timestamp": ts,
            "type": "turn_context",
            "payload": {"turn_id": tid, "cwd": cwd, "model": "gpt-5"},
        },
        {
            "timestamp": ts,
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": request}],
            },
        },
        {
            "timestamp": ts,
            "type": "event_msg",
            "payload": {"type": "user_message", "message": request, "images": []},
        },
    ]
    for call in range(rng.randint(1, 5)):
        cid = f"call_{turn}_{call}"
        command = f"rg -n {text.words_(1)} src | head -{rng.randint(5, 50)}"
        output = text.output()
        out += [
            {
                "timestamp": ts,
                "type": "response_item",
                "payload": {
                    "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": text.words_(30)}],
                    "encrypted_content": "gAAA" + "Qk9" * rng.randint(200, 1200),
                },
            },
            {
                "timestamp": ts,
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "exec_command",
                    "call_id": cid,
                    "arguments": json.dumps({"cmd": command, "workdir": cwd}),
                },
            },
            {
                "timestamp": ts,
                "type": "response_item",
                "payload": {
                    "type": "function_call_output",
                    "call_id": cid,
                    "output": "Process exited with code 0\nOutput:\n" + output,
                },
            },
            {
                "timestamp": ts,
                "type": "event_msg",
                "payload": {
                    "type": "token_count",
                    "info": {
                        "total_token_usage": {"total_tokens": 1000 * turn},
                        "last_token_usage": {
                            "input_tokens": 900,
                            "output_tokens": 100,
                            "total_tokens": 1000,
                        },
                    },
                },
            },
        ]
    answer = text.prose(rng.randint(30, 120))
    out += [
        {
            "timestamp": ts,
            "type": "event_msg",
            "payload": {"type": "agent_message", "message": answer},
        },
        {
            "timestamp": ts,
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": answer}],
            },
        },
        {
            "timestamp": ts,
            "type": "event_msg",
            "payload": {"type": "task_complete", "turn_id": tid},
        },
    ]
    return out  # fmt: skip


def claude_turn(text: Text, turn: int, cwd: str, session: str) -> list[dict[str, Any]]:
    rng, ts = text.rng, _stamp(turn)
    base = {
        "sessionId": session,
        "cwd": cwd,
        "isSidechain": False,
        "timestamp": ts,
        "version": "2.1.332",
        "userType": "external",
    }
    parent = f"u{turn}"
    out: list[dict[str, Any]] = [
        {
            **base,
            "type": "user",
            "uuid": parent,
            "parentUuid": None,
            "message": {"role": "user", "content": text.prose(rng.randint(8, 40))},
        }
    ]
    for call in range(rng.randint(1, 5)):
        mid, tid = f"msg_{turn}_{call}", f"toolu_{turn}_{call}"
        output = text.output()
        out += [
            {
                **base,
                "type": "assistant",
                "uuid": f"a{turn}.{call}",
                "parentUuid": parent,
                "requestId": f"r{turn}.{call}",
                "message": {
                    "id": mid,
                    "role": "assistant",
                    "model": "claude-x",
                    "content": [
                        {"type": "thinking", "thinking": text.words_(30), "signature": "s" * 300},
                        {
                            "type": "tool_use",
                            "id": tid,
                            "name": "Bash",
                            "input": {"command": f"grep -rn {text.words_(1)} ."},
                        },
                    ],
                    "stop_reason": "tool_use",
                    "usage": {"input_tokens": 10, "output_tokens": 20},
                },
            },
            {
                **base,
                "type": "user",
                "uuid": f"r{turn}.{call}",
                "parentUuid": f"a{turn}.{call}",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": tid, "content": output}],
                },
                "toolUseResult": {"stdout": output, "stderr": "", "interrupted": False},
            },
        ]
        parent = f"r{turn}.{call}"
    out.append(
        {
            **base,
            "type": "assistant",
            "uuid": f"f{turn}",
            "parentUuid": parent,
            "requestId": f"f{turn}",
            "message": {
                "id": f"fin{turn}",
                "role": "assistant",
                "model": "claude-x",
                "content": [{"type": "text", "text": text.prose(rng.randint(30, 120))}],
                "stop_reason": "end_turn",
            },
        }
    )
    return out  # fmt: skip


def session_sizes(rng: random.Random, total: int) -> list[int]:
    sizes: list[int] = []
    while sum(sizes) < total:
        roll = rng.random()
        if roll < 0.70:
            size = rng.randint(50_000, 500_000)
        elif roll < 0.95:
            size = rng.randint(1_000_000, 10_000_000)
        else:
            size = rng.randint(20_000_000, 60_000_000)
        sizes.append(min(size, total - sum(sizes)) if total - sum(sizes) > 50_000 else size)
    return sizes


def write_session(root: Path, text: Text, kind: str, number: int, size: int) -> Path:
    cwd = f"/srv/project-{number % 12}"
    session = str(uuid.UUID(int=text.rng.getrandbits(128), version=4))
    if kind == "codex":
        day = root / ".codex" / "sessions" / "2026" / "10" / f"{1 + number % 28:02d}"
        day.mkdir(parents=True, exist_ok=True)
        path = day / f"rollout-2026-10-01T00-00-{number % 60:02d}-{session}.jsonl"
        meta = {"timestamp": _stamp(0), "type": "session_meta", "payload": {
            "id": session, "cwd": cwd, "cli_version": "0.171.0", "originator": "codex_exec",
            "base_instructions": {"text": "You are a coding agent. " * 200}}}  # fmt: skip
        lines = [meta]
    else:
        folder = root / ".claude" / "projects" / cwd.replace("/", "-")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{session}.jsonl"
        lines = []
    written = 0
    turn = number * 1000
    encode = msgspec.json.encode
    with path.open("wb") as handle:
        for record in lines:
            written += handle.write(encode(record) + b"\n")
        while written < size:
            turn += 1
            records = (
                codex_turn(text, turn, cwd)
                if kind == "codex"
                else claude_turn(text, turn, cwd, session)
            )
            for record in records:
                written += handle.write(encode(record) + b"\n")
    return path


def generate(root: Path, megabytes: float) -> tuple[list[Path], Text]:
    rng = random.Random(SEED)
    text = Text(rng)
    paths = []
    for number, size in enumerate(session_sizes(rng, int(megabytes * 1024 * 1024))):
        kind = "codex" if number % 2 == 0 else "claude"
        paths.append(write_session(root, text, kind, number, size))
    return paths, text


def queries(text: Text, count: int) -> list[str]:
    rng = random.Random(SEED + 1)
    common, rare = text.words[:200], text.words[5000:]
    out: list[str] = []
    while len(out) < count:
        roll = rng.random()
        if roll < 0.35:
            out.append(rng.choice(rare))
        elif roll < 0.55:
            out.append(f"{rng.choice(common)} {rng.choice(rare)}")
        elif roll < 0.7:
            out.append(f'"{text.words_(2)}"')
        elif roll < 0.8:
            out.append(rng.choice(rare)[:4] + "*")
        elif roll < 0.9:
            sentence = rng.choice(CJK_SENTENCES)
            start = rng.randrange(0, len(sentence) - 4)
            out.append(sentence[start : start + rng.randint(2, 4)])
        else:
            out.append(rng.choice(common))
    return out


def _cpu_seconds() -> tuple[float, float]:
    """User + system time of this process, and of its finished children (the parse workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def _json_pass(paths: list[Path]) -> float:
    """Seconds for one ``json.loads`` of every line of the corpus (the baseline)."""
    started = time.perf_counter()
    for path in paths:
        with path.open("rb") as handle:
            for line in handle:
                json.loads(line)
    return time.perf_counter() - started


def _query_ms(executor: Any, asked: list[str]) -> tuple[list[float], int]:
    """Each query's milliseconds, and how many found something."""
    latencies: list[float] = []
    hits = 0
    for query in asked:
        began = time.perf_counter()
        found = executor.handle("runtime.tasks.search", {"query": query, "limit": 20})
        latencies.append((time.perf_counter() - began) * 1000)
        hits += bool(found["results"])
    return latencies, hits


def _armed_watcher(executor: Any) -> Any:
    """The session watcher ``hangar serve`` runs for this executor, started and armed."""
    from hangar.executor.watcher import SessionWatcher

    watcher = SessionWatcher(
        executor.device.device_id,
        executor.stores.homes(),
        executor.settings.paths.home,
        lambda _event, _data: None,
        gate=executor.rescans,
    )
    watcher.start()
    deadline = time.monotonic() + 60
    while not executor.rescans.watched:
        if time.monotonic() > deadline:
            raise RuntimeError("the session watcher did not arm within 60 s")
        time.sleep(0.01)
    return watcher


def run(megabytes: float, query_count: int) -> dict[str, Any]:
    scratch = Path(tempfile.mkdtemp(prefix="hangar-bench-search-"))
    try:
        home = scratch / "home"
        os.environ.update(
            {"HOME": str(home), "HANGAR_HOME": str(scratch / "hangar"), "PATH": "/usr/bin:/bin"}
        )
        for var in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
            os.environ.pop(var, None)
        started = time.perf_counter()
        paths, text = generate(home, megabytes)
        generate_s = time.perf_counter() - started
        corpus_bytes = sum(p.stat().st_size for p in paths)

        from hangar.agents.launch import NoLauncher
        from hangar.executor.search_service import INDEX_WORKERS
        from hangar.executor.search_text import compile_query
        from hangar.executor.service import Executor

        executor = Executor.open(launcher=NoLauncher())
        services = executor.search
        json_pass_s = _json_pass(paths)
        started, cpu_before = time.perf_counter(), _cpu_seconds()
        progress = services.sync()
        index_s = time.perf_counter() - started
        cpu_after = _cpu_seconds()
        left_to_read = executor.index_pending(10_000)
        main_cpu_s = cpu_after[0] - cpu_before[0]
        workers_cpu_s = cpu_after[1] - cpu_before[1]
        stats = services.indexer.stats
        first_bytes = stats.bytes_read

        asked = queries(text, query_count)
        watcher = _armed_watcher(executor)
        try:
            latencies, hits = _query_ms(executor, asked)
        finally:
            watcher.stop()
            watcher.join(10)
        unwatched = sorted(_query_ms(executor, asked)[0])
        bare: list[float] = []
        conn = executor.db.read()
        for query in asked:
            match = "{body} : (" + compile_query(query) + ")"
            began = time.perf_counter()
            conn.execute("SELECT count(*) FROM search_fts WHERE search_fts MATCH ?", (match,))
            bare.append((time.perf_counter() - began) * 1000)

        # One session is being written to: append a turn, re-index, twice. The first time
        # after a (parallel) first build its parse state is not in this process, so that one
        # file is read again; from then on only the appended bytes are read.
        target = sorted((p for p in paths if ".claude" in str(p)), key=lambda p: p.stat().st_size)[
            len(paths) // 4
        ]
        appends = []
        for round_ in range(2):
            turn = claude_turn(text, 999_000 + round_, "/srv/project-append", target.stem)
            appended = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in turn).encode()
            with target.open("ab") as handle:
                handle.write(appended)
            before = (stats.bytes_read, stats.full_parses, stats.appends)
            started = time.perf_counter()
            services.sync()
            seconds = time.perf_counter() - started
            word = turn[0]["message"]["content"].split()[-1]
            found = executor.handle("runtime.tasks.search", {"query": word, "limit": 100})
            appends.append(
                {
                    "appended_bytes": len(appended),
                    "file_bytes": target.stat().st_size,
                    "bytes_read": stats.bytes_read - before[0],
                    "files_fully_reparsed": stats.full_parses - before[1],
                    "files_appended": stats.appends - before[2],
                    "seconds": round(seconds, 3),
                    "new_text_found": any(r["localTaskId"] for r in found["results"]),
                }
            )
        executor.close()

        latencies.sort()
        bare.sort()
        p95 = latencies[int(len(latencies) * 0.95) - 1]
        rate = first_bytes / 1e6 / index_s
        return {
            "corpus": {
                "sessions": len(paths),
                "bytes": corpus_bytes,
                "mb": round(corpus_bytes / 1e6, 1),
                "generate_s": round(generate_s, 1),
                "agents": ["codex", "claude"],
            },
            "index": {
                "seconds": round(index_s, 2),
                "bytes_read": first_bytes,
                "mb_per_s": round(rate, 1),
                "json_pass_mb_per_s": round(corpus_bytes / 1e6 / json_pass_s, 1),
                "over_json_pass": round(rate / (corpus_bytes / 1e6 / json_pass_s), 3),
                "one_parse": left_to_read == 0,
                "left_to_read_after_build": left_to_read,
                "main_cpu_s": round(main_cpu_s, 2),
                "workers_cpu_s": round(workers_cpu_s, 2),
                "mb_per_cpu_s": round(first_bytes / 1e6 / (main_cpu_s + workers_cpu_s), 1),
                "load_average_1m": round(os.getloadavg()[0], 2),
                "workers": INDEX_WORKERS,
                "tasks": progress.tasks_done,
                "errors": progress.errors,
                "db_mb": round((scratch / "hangar" / "executor.db").stat().st_size / 1e6, 1),
            },
            "query": {
                "count": len(latencies),
                "with_results": hits,
                "p50_ms": round(statistics.median(latencies), 2),
                "p95_ms": round(p95, 2),
                "max_ms": round(latencies[-1], 2),
                "fts_count_p95_ms": round(bare[int(len(bare) * 0.95) - 1], 2),
                "unwatched_p95_ms": round(unwatched[int(len(unwatched) * 0.95) - 1], 2),
            },
            "append_first_after_build": appends[0],
            "append_warm": appends[1],
            "targets": {
                "index_mb_per_s_ge_100": rate >= 100,
                "query_p95_ms_le_20": p95 <= 20,
                "one_parse_per_change": left_to_read == 0,
                "append_reads_only_that_file": (
                    appends[0]["bytes_read"] <= appends[0]["file_bytes"]
                    and appends[0]["files_fully_reparsed"] + appends[0]["files_appended"] == 1
                ),
                "append_warm_reads_only_new_bytes": (
                    appends[1]["bytes_read"] == appends[1]["appended_bytes"]
                ),
            },
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--mb", type=float, default=1024, help="corpus size in MiB")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    result = run(args.mb, args.queries)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for section, values in result.items():
            print(section, values)
    sys.exit(0 if all(result["targets"].values()) else 1)


if __name__ == "__main__":
    main()
