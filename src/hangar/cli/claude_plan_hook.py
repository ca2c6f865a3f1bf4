"""``hangar __claude-plan-hook --port N --token T`` (hidden): Claude's ``PostToolUse`` hook for
``ExitPlanMode`` in a discussion (LR-210..LR-215).

Claude runs it once the user approved its plan, with the hook payload (the raw plan in
``tool_input.plan``) on stdin. It forwards the payload to the hook server of the ``hangar
discuss`` that started this Claude and waits — while hangar shows the issue card and binds
the issue and the run — for the answer, which it prints on stdout for Claude: nothing when
the work goes on (the same session continues), a ``block`` decision when the user cancelled
(hangar then ends Claude). The answer never carries the issue's text. When hangar cannot be
reached the hook fails (exit 1, the reason on stderr): a real error stays an error (LR-115).
"""

from __future__ import annotations

import sys

import click
import httpx

from hangar.localrun.providers.claude import TOKEN_HEADER
from hangar.localrun.providers.claude_plan import PLAN_HOOK_PATH


@click.command("__claude-plan-hook", hidden=True)
@click.option("--port", type=int, required=True)
@click.option("--token", required=True)
def claude_plan_hook_command(port: int, token: str) -> None:
    payload = sys.stdin.buffer.read(1 << 22)
    try:
        answer = httpx.post(
            f"http://127.0.0.1:{port}{PLAN_HOOK_PATH}",
            content=payload,
            headers={TOKEN_HEADER: token, "Content-Type": "application/json"},
            timeout=httpx.Timeout(10.0, read=None),  # the user may take their time on the card
            trust_env=False,
        )
    except httpx.HTTPError as exc:
        print(f"hangar: the plan hook could not reach hangar discuss: {exc}", file=sys.stderr)
        sys.exit(1)
    if answer.status_code != 200:
        print(f"hangar: the plan hook was refused: HTTP {answer.status_code}", file=sys.stderr)
        sys.exit(1)
    if answer.content.strip():
        sys.stdout.write(answer.text)
