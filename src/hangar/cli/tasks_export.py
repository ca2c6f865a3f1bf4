"""``hangar tasks export TASK --format md|html``: a whole transcript as a file, redacted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from hangar.cli.local_executor import open_executor
from hangar.presentation.export import FORMATS, collect_messages, export_transcript

PAGE = 500


@click.command("export")
@click.argument("task")
@click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default="md", show_default=True,
    help="Markdown, or one self-contained HTML page.",
)  # fmt: skip
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file (default: standard output).",
)  # fmt: skip
def export_command(task: str, fmt: str, output: Path | None) -> None:
    """Export TASK's whole transcript with secrets redacted."""
    with open_executor() as executor:
        local_task_id = executor.resolve_task(task)

        def fetch(cursor: str | None) -> dict[str, Any]:
            payload: dict[str, Any] = {"localTaskId": local_task_id, "limit": PAGE}
            if cursor:
                payload["beforeCursor"] = cursor
            return executor.handle("runtime.tasks.transcript", payload)

        info, messages = collect_messages(fetch)
    text = export_transcript(fmt, info, messages)  # type: ignore[arg-type]
    if output is None:
        click.echo(text, nl=False)
        return
    output.write_text(text, encoding="utf-8")
    click.echo(f"wrote {len(messages)} messages to {output}", err=True)
