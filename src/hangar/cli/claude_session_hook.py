"""``hangar __claude-session-hook --port N --token T`` (hidden): Claude's SessionStart hook.

Claude runs it with the hook payload on stdin; it forwards that JSON to the local hook server
of the ``hangar run`` that started this Claude. It prints nothing on stdout (Claude would add
stdout to the session's context) and always exits 0, so a hangar problem never blocks Claude.
"""

from __future__ import annotations

import sys

import click
import httpx

from hangar.localrun.providers.claude import HOOK_PATH, TOKEN_HEADER


@click.command("__claude-session-hook", hidden=True)
@click.option("--port", type=int, required=True)
@click.option("--token", required=True)
def claude_session_hook_command(port: int, token: str) -> None:
    payload = sys.stdin.buffer.read(1 << 20)
    try:
        httpx.post(
            f"http://127.0.0.1:{port}{HOOK_PATH}",
            content=payload,
            headers={TOKEN_HEADER: token, "Content-Type": "application/json"},
            timeout=5.0,
            trust_env=False,
        )
    except httpx.HTTPError as exc:
        print(f"hangar: session hook could not reach hangar run: {exc}", file=sys.stderr)
