"""``hangar __session-hook --port N --token T [--event E]`` (hidden): an agent CLI's hook.

An agent CLI runs it with the hook payload (JSON) on stdin; it forwards that payload to the
hook server of the ``hangar run`` that configured the hook
(:mod:`hangar.localrun.providers.hook_server`), adding ``hangar_event`` when ``--event`` is
given (for CLIs whose payload does not name its event). It prints nothing on stdout (some
CLIs add a hook's stdout to the session's context) and always exits 0, so a hangar problem
never blocks the agent.
"""

from __future__ import annotations

import json
import sys

import click
import httpx

from hangar.localrun.providers.hook_server import HOOK_PATH, MAX_PAYLOAD, TOKEN_HEADER


@click.command("__session-hook", hidden=True)
@click.option("--port", type=int, required=True)
@click.option("--token", required=True)
@click.option("--event", default=None)
def session_hook_command(port: int, token: str, event: str | None) -> None:
    payload = sys.stdin.buffer.read(MAX_PAYLOAD)
    if event is not None:
        try:
            data = json.loads(payload or b"{}")
        except ValueError:
            data = {}
        if not isinstance(data, dict):
            data = {"payload": data}
        data["hangar_event"] = event
        payload = json.dumps(data).encode()
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
