"""``hangar tasks send TASK TEXT --model M [--image F]``: continue a task from the terminal.

The command opens this device's executor (no hub needed), sends the message through the
task's agent exactly as the web UI does (``runtime.tasks.send``; the model is required and
checked against what the agent offers) and prints the reply as it streams. Files given with
``--image``/``--file`` are same-device records (their path, read on this device; RW-284).
When the agent asks for approval, a terminal is asked too (approve / always for this session /
deny); without one the request is denied and the reason printed. Exit status: 0 when the
reply completed, 1 when it failed or was stopped.
"""

from __future__ import annotations

import mimetypes
import sys
import threading
from pathlib import Path
from typing import Any

import click

from hangar.cli.local_executor import open_executor

WAIT_SECONDS = 24 * 3600.0
ANSWERS = {"y": "approve", "a": "approve_for_session", "n": "deny"}


def _record(path: str, image: bool) -> dict[str, Any]:
    file = Path(path).expanduser().resolve()
    if not file.is_file():
        raise click.BadParameter(f"{path}: no such file")
    mime = mimetypes.guess_type(file.name)[0] or ("image/png" if image else "text/plain")
    return {
        "name": file.name,
        "mimeType": mime,
        "size": file.stat().st_size,
        "localPath": str(file),
    }


class _Printer:
    """Prints one turn's events; remembers how it ended."""

    def __init__(self, local_task_id: str, interactive: bool) -> None:
        self.local_task_id = local_task_id
        self.interactive = interactive
        self.subtask: str | None = None
        self.done = threading.Event()
        self.outcome = "failed"
        self.error = ""
        self.approvals: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __call__(self, event: str, data: dict[str, Any]) -> None:
        if event != "runtime.turn" or data.get("localTaskId") != self.local_task_id:
            return
        kind = data.get("type")
        with self._lock:
            if kind == "response.output_text.delta":
                click.echo(data.get("delta", ""), nl=False)
            elif kind == "response.tool" and data.get("status") == "running":
                click.echo(f"\n  ▸ {data.get('name')} {data.get('summary') or ''}".rstrip())
            elif kind == "response.compaction" and data.get("status") == "done":
                click.echo("\n  (context compacted)")
            elif kind == "approval.requested":
                self.approvals.append(data["approval"])
            elif kind in ("response.completed", "response.failed", "response.incomplete"):
                self.outcome = {"response.completed": "completed", "response.failed": "failed"}.get(
                    str(kind), "interrupted"
                )
                self.error = str(data.get("error") or "")
                self.done.set()


@click.command("send")
@click.argument("task")
@click.argument("text", required=False, default="")
@click.option(
    "--model", "model_id", required=True, help="A model the agent lists (see --list-models)."
)
@click.option("--model-type", help="The provider of the model (OpenCode), as listed.")
@click.option("--effort", help="Reasoning effort, when the model offers it.")
@click.option("--image", "images", multiple=True, help="An image to send with the message.")
@click.option("--file", "files", multiple=True, help="A file to send with the message.")
def send_command(
    task: str,
    text: str,
    model_id: str,
    model_type: str | None,
    effort: str | None,
    images: tuple[str, ...],
    files: tuple[str, ...],
) -> None:
    """Send TEXT to a task and print the reply as it streams. TASK: a localTaskId, a unique
    prefix, or the agent's session id."""
    attachments = [_record(p, True) for p in images] + [_record(p, False) for p in files]
    model: dict[str, Any] = {"modelId": model_id}
    if model_type:
        model["modelType"] = model_type
    if effort:
        model["options"] = {"effort": effort}
    with open_executor() as executor:
        local_task_id = executor.resolve_task(task)
        printer = _Printer(local_task_id, sys.stdin.isatty())
        executor.attach_events(printer)
        payload: dict[str, Any] = {"localTaskId": local_task_id, "text": text, "model": model}
        if attachments:
            payload["attachments"] = attachments
        executor.handle("runtime.tasks.send", payload)
        while not printer.done.wait(0.2):
            while printer.approvals:
                _ask(executor, local_task_id, printer.approvals.pop(0), printer.interactive)
        click.echo()
    if printer.outcome != "completed":
        message = printer.error or "the reply was stopped"
        click.echo(f"hangar: {printer.outcome}: {message}", err=True)
        sys.exit(1)


def _ask(executor: Any, local_task_id: str, approval: dict[str, Any], interactive: bool) -> None:
    click.echo(f"\n  ? {approval['title']}: {approval['detail']}")
    if interactive:
        choice = click.prompt(
            "  approve? [y]es / [a]lways for this session / [n]o",
            type=click.Choice(sorted(ANSWERS)),
            default="n",
        )
        decision = ANSWERS[choice]
    else:
        decision = "deny"
        click.echo("  denied: no terminal to ask (answer approvals in the web UI instead)")
    executor.handle(
        "runtime.tasks.approval.answer",
        {"localTaskId": local_task_id, "approvalId": approval["approvalId"], "decision": decision},
    )


@click.command("models")
@click.argument("task")
def models_command(task: str) -> None:
    """The models TASK's agent offers (for send --model) and what hangar can do with it."""
    with open_executor() as executor:
        local_task_id = executor.resolve_task(task)
        data = executor.handle("runtime.tasks.models", {"localTaskId": local_task_id})
    for model in data["models"]:
        mark = "*" if model["isDefault"] else " "
        efforts = f"  effort: {', '.join(model['efforts'])}" if model["efforts"] else ""
        click.echo(
            f"{mark} {model['id']:<28} {model['modelType']:<10} {model['displayName']}{efforts}"
        )
    click.echo(f"operations: {', '.join(data['operations']) or 'none'}")
