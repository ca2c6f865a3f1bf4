"""Run a v2 plugin in a discussion as ``hangar discuss`` will, inside the sandbox: the adapter on
a scripted terminal, the discussion's messages recorded, the handoff bound on a real hub by
:class:`hub_binder.HubBinder` (a stand-in for the discussion command's card). Prints one JSON
object: the exit code, the discussion's messages, the handoff requests, the binding.

    python discussion_driver.py PLUGIN_DIR HUB_URL TOKEN SPOOL_DIR STEPS_JSON
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict
from pathlib import Path

from hub_binder import HubBinder

from hangar.localrun.plugins.handoff import SwitchableTarget
from hangar.localrun.plugins.manifest import load_manifest
from hangar.localrun.plugins.provider import run_discussion_session
from hangar.testing.plugin_kit_harness import KitPtyRunner, KitStep, Recorder


def main(folder: str, url: str, token: str, spool: str, steps: str) -> int:
    manifest = load_manifest(Path(folder) / "provider.json")
    discussion = Recorder()
    target = SwitchableTarget(discussion)
    binder = HubBinder(url, token, discussion, target, Path(spool), title="Marker plan")
    runner = KitPtyRunner([KitStep(**step) for step in json.loads(steps)], timeout=300)
    try:
        outcome = run_discussion_session(
            manifest, [], Path.cwd(), os.environ, session_id="discussion-hermes-1",
            target=target, binder=binder, runner=runner,
        )  # fmt: skip
    finally:
        binder.close()
    print(json.dumps({
        "exitCode": outcome.exit_code,
        "invalid": outcome.stats.invalid,
        "missed": runner.missed.expect if runner.missed else None,
        "messages": [m.to_json() for m in discussion.messages],
        "requests": [asdict(r) for r in binder.requests],
        "screen": runner.screen.decode("utf-8", "replace")[-3000:],
    }))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
