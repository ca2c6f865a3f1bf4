"""Generate the demo corpus: ``python -m hangar.testing.corpus OUT_DIR`` (``make corpus``).

Runs the corpus sessions below through the four real CLIs in one sandbox whose ``HOME`` is
``/home/demo`` (a temp dir bind-mounted over ``/home`` inside the sandbox's private mount
namespace only), then copies what a reader needs into ``OUT_DIR/home`` (the agents' session
stores and the projects' files, without ``.git``) and writes ``OUT_DIR/manifest.json``
describing every session. Everything else the CLIs write (caches, logs, SQLite mirrors,
bundled skills, opencode's ``.so`` in ``TMPDIR``) stays in the temp dir and is deleted.
"""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import sqlite3
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from hangar.testing.agent_runs import AgentRun, AgentSandbox

USER = "demo"


@dataclass(frozen=True)
class Turn:
    scenario: str
    prompt: str
    expect_failure: bool = False


@dataclass(frozen=True)
class Session:
    cli: str
    cwd: str  # relative to the home; a scenario asking for a worktree moves it there
    kind: str  # workspace | worktree | chat
    turns: tuple[Turn, ...]


def chat_folder() -> str:
    return f"Documents/Codex/{datetime.datetime.now(datetime.UTC):%Y-%m-%d}/weekend-trip"


SESSIONS = (
    Session(
        "codex",
        "code/webshop",
        "workspace",
        (
            Turn("demo-webshop-cart", "Add a cart_total helper to the shop package"),
            Turn("demo-webshop-cart-followup", "Which functions does cart.py define now?"),
        ),
    ),
    Session(
        "claude",
        "code/webshop",
        "worktree",
        (
            Turn("demo-webshop-checkout", "Write down the checkout steps in CHECKOUT.md"),
            Turn("demo-webshop-checkout-followup", "Why reserve stock before payment?"),
            Turn("demo-failing-turn", "Paste the full payment log here", expect_failure=True),
        ),
    ),
    Session(
        "opencode",
        "code/infra",
        "workspace",
        (
            Turn("demo-infra-terraform", "Draft a Terraform file for the assets bucket"),
            Turn("demo-infra-followup", "Rename the bucket to webshop-static-assets"),
        ),
    ),
    Session(
        "cn",
        "code/infra",
        "workspace",
        (
            Turn("demo-infra-review", "Review the infra repository"),
            Turn("demo-infra-review-followup", "Which backend would you use?"),
        ),
    ),
    Session(
        "codex",
        "",
        "chat",
        (
            Turn("demo-chat-question", "Ideas for a weekend trip?"),
            Turn("demo-chat-followup", "And if it rains?"),
        ),
    ),
)

# What a session reader needs from each agent home, relative to HOME.
KEEP = (
    ".codex/sessions",
    ".codex/session_index.jsonl",
    ".claude/projects",
    ".local/share/opencode/opencode.db",
    ".continue/sessions",
)


def run_sessions(box: AgentSandbox) -> list[dict[str, Any]]:
    manifest = []
    for session in SESSIONS:
        cwd: str | PurePosixPath = session.cwd or chat_folder()
        runs: list[AgentRun] = []
        for number, turn in enumerate(session.turns):
            run = box.run_agent(session.cli, turn.scenario, turn.prompt, cwd=cwd, resume=number > 0)
            # claude -p exits 0 after an API error; its result event says is_error
            failed = run.returncode != 0 or any(
                e.get("type") == "result" and e.get("is_error") for e in run.events
            )
            if failed != turn.expect_failure:
                raise RuntimeError(
                    f"{session.cli} {turn.scenario}: exit {run.returncode}\n{run.stderr[-3000:]}"
                )
            cwd = run.cwd_inside
            runs.append(run)
        manifest.append(
            {
                "cli": session.cli,
                "sessionId": runs[0].session_id,
                "cwd": str(runs[0].cwd_inside),
                "workspaceKind": session.kind,
                "repositoryRoot": f"/home/{USER}/{session.cwd}" if session.cwd else None,
                "turns": [
                    {"scenario": t.scenario, "prompt": t.prompt, "fails": t.expect_failure}
                    for t in session.turns
                ],
            }
        )
        if any(r.session_id != runs[0].session_id for r in runs if r.session_id):
            raise RuntimeError(f"{session.cli}: the resumed turn started a new session")
    return manifest


def checkpoint(db: Path) -> None:
    """Fold opencode's WAL into the main file so ``opencode.db`` alone is complete."""
    connection = sqlite3.connect(db)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.execute("PRAGMA journal_mode=DELETE")
        connection.execute("VACUUM")
    finally:
        connection.close()


def copy_out(home: Path, out: Path) -> None:
    target = out / "home"
    if target.exists():
        shutil.rmtree(target)
    checkpoint(home / ".local/share/opencode/opencode.db")
    for relative in KEEP:
        source = home / relative
        if source.is_dir():
            shutil.copytree(source, target / relative)
        elif source.exists():
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / relative)
    for folder in ("code", "Documents"):
        shutil.copytree(
            home / folder, target / folder, ignore=shutil.ignore_patterns(".git", "__pycache__")
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path, help="corpus folder, e.g. demo/corpus")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hangar-corpus-") as temp:
        with AgentSandbox(Path(temp), user=USER) as box:
            manifest = run_sessions(box)
            home = box.host(box.homes.home)
            args.out.mkdir(parents=True, exist_ok=True)
            copy_out(home, args.out)
        document = {"home": f"/home/{USER}", "sessions": manifest}
        (args.out / "manifest.json").write_text(json.dumps(document, indent=2) + "\n")
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"corpus written to {args.out} ({size / 1024:.0f} KiB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
