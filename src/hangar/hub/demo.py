"""``hangar serve --demo``: a temporary copy of the bundled sample sessions, and sample issues.

The copy becomes ``HOME`` (every agent home is then found inside it) and ``HANGAR_HOME`` lives
next to it, so the demo never reads the user's agents nor writes to the user's hangar state.
``hangar serve`` removes the directory when it stops, also on SIGTERM (an ``atexit`` hook is
the fallback). :func:`seed_demo_issues` fills the demo's empty hub with the sample issues of
``issues.json`` beside the corpus: comments, a parent with a child, and a finished local run
whose log the hub's outbox turns into a comment thread, as it does for a real run.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from collections.abc import MutableMapping
from importlib import resources
from pathlib import Path
from typing import Any

import msgspec

from hangar.errors import UsageError
from hangar.hub.context import HubContext
from hangar.hub.store import comments as comments_repo
from hangar.hub.store import issues as issues_repo
from hangar.hub.store import local_runs as runs_repo
from hangar.model.run_messages import SOURCE_CODEX, UsageEntry, decode_run_message

#: Variables that would point an agent (or hangar) outside the demo copy.
OVERRIDES = (
    "CODEX_HOME",
    "CLAUDE_CONFIG_DIR",
    "CONTINUE_GLOBAL_DIR",
    "GEMINI_CLI_HOME",
    "COPILOT_HOME",
    "CURSOR_CONFIG_DIR",
    "QWEN_HOME",
    "KIRO_HOME",
    "HANGAR_TOKEN",
    "HANGAR_SERVER_URL",
)


def demo_corpus() -> Path:
    """The sample HOME (``<corpus>/home``): inside the installed package (the wheel carries
    ``demo/corpus`` as ``hangar/demo_corpus``), else the source checkout's ``demo/corpus``."""
    candidates = (
        Path(str(resources.files("hangar"))) / "demo_corpus",
        Path(__file__).resolve().parents[3] / "demo" / "corpus",
    )
    for corpus in candidates:
        if (corpus / "home").is_dir():
            return corpus / "home"
    raise UsageError("the demo sessions are not installed (no demo corpus in this hangar)")


def demo_issues_file() -> Path:
    """The sample issues that come with the demo corpus."""
    return demo_corpus().parent / "issues.json"


def remove_demo_environment(root: Path) -> None:
    """Remove a demo copy made by :func:`prepare_demo_environment` (idempotent)."""
    shutil.rmtree(root, ignore_errors=True)


def prepare_demo_environment(environ: MutableMapping[str, str]) -> Path:
    """Copy the corpus to a new temp dir and point ``environ`` at it; returns the temp dir."""
    source = demo_corpus()
    root = Path(tempfile.mkdtemp(prefix="hangar-demo-"))
    atexit.register(remove_demo_environment, root)
    home = root / "home"
    shutil.copytree(source, home, symlinks=True)
    for name in OVERRIDES:
        environ.pop(name, None)
    environ["HOME"] = str(home)
    environ["HANGAR_HOME"] = str(root / "hangar-home")
    environ["XDG_DATA_HOME"] = str(home / ".local" / "share")
    environ["XDG_CONFIG_HOME"] = str(home / ".config")
    environ["XDG_STATE_HOME"] = str(home / ".local" / "state")
    environ["XDG_CACHE_HOME"] = str(root / "cache")
    return root


def seed_demo_issues(ctx: HubContext, path: Path) -> int:
    """Create the sample issues of ``path`` in an empty hub; returns how many were created
    (none when the hub already has issues)."""
    engine, workspace = ctx.engine, ctx.workspace
    if issues_repo.list_issues(engine, workspace, issues_repo.IssueFilter(), limit=1):
        return 0
    document = json.loads(path.read_text(encoding="utf-8"))
    keys: dict[str, str] = {}
    for item in document["issues"]:
        fields = {
            name: item[name]
            for name in ("title", "description", "priority", "labels")
            if name in item
        }
        if item.get("parent"):
            fields["parentKey"] = keys[item["parent"]]
        key = issues_repo.create_issue(engine, workspace, fields)["key"]
        keys[item["ref"]] = key
        comment_ids: dict[str, str] = {}
        for comment in item.get("comments", []):
            parent = comment_ids.get(comment.get("replyTo", ""))
            added = comments_repo.add_comment(engine, workspace, key, comment["body"], parent)
            if comment.get("ref"):
                comment_ids[comment["ref"]] = added["id"]
        if "run" in item:
            _seed_run(ctx, key, item["run"])
        issues_repo.update_issue(engine, workspace, key, {"status": item["status"]})
    return len(keys)


def _seed_run(ctx: HubContext, key: str, run: dict[str, Any]) -> None:
    fields = {
        "cliName": run["cliName"],
        "workDir": run["workDir"],
        "source": "hangar-demo",
        "sourceKey": run["sourceKey"],
    }
    created, _new, _token = runs_repo.create_run(
        ctx.engine,
        ctx.workspace,
        key,
        fields,
        mint_token=lambda run_id: (
            runs_repo.TOKEN_PREFIX + ctx.auth.keyed_digest("run-token:" + run_id)
        ),
    )
    for message in run["messages"]:
        body = json.dumps({"source": SOURCE_CODEX, **message}).encode()
        # The hub's own path for a posted message: decoded strictly, redacted and bounded.
        runs_repo.add_message(ctx.engine, created["id"], decode_run_message(body).prepared())
    usage = msgspec.convert(run.get("usage", []), list[UsageEntry])
    runs_repo.put_usage(ctx.engine, created["id"], usage)
    final = {"status": "completed", "exitCode": run["exitCode"], "activeMs": run["activeMs"]}
    runs_repo.patch_run(ctx.engine, ctx.workspace, created["id"], final)
