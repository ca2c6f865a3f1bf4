"""A scripted **stand-in** for the Antigravity CLI (``agy``), for tests only.

The real CLI is not in the package registries this project installs from, so provider tests
run this instead. It writes a conversation's step log in the public fixture format (one JSON
step a line: ``step_index``, ``source``, ``type``, ``status``, ``created_at``, ``content``,
``thinking``, ``tool_calls``) where agy keeps it,
``~/.gemini/antigravity-cli/brain/<conversation id>/.system_generated/logs/transcript.jsonl``,
logs ``Conversation ID: <id>`` to ``--log-file FILE`` when a conversation starts, and answers
from a script instead of a model:

- ``agy [--log-file FILE] …`` is the interactive loop on the terminal;
- a line ``RUN: CMD`` runs ``CMD`` (a ``PLANNER_RESPONSE`` calling ``run_command``, a
  ``RUN_COMMAND`` step with its real output, then "Done: the command ran.");
- ``fail …`` ends the turn with an ``ERROR_MESSAGE`` step;
- ``/clear`` starts a new conversation in the same CLI (a new id, logged to ``--log-file``:
  the stand-in's assumption, real agy's behaviour here is not documented); ``/quit`` (or end of
  input) exits; any other ``/…`` line is sent to the "model" like a request (recorded as a
  ``USER_INPUT``), answered with nothing when it has no arguments;
- anything else is answered "You said: …";
- ``agy -p PROMPT`` answers one prompt in a new conversation and exits.

The banner shows the conversation id and ``HANGAR_RUN_ID`` (what ``hangar run`` gave it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from hangar.testing.standin_args import flag

BANNER = "Antigravity CLI (hangar test stand-in)"


class Conversation:
    def __init__(self, log_file: str | None) -> None:
        self.id = str(uuid.uuid4())
        if log_file:
            with Path(log_file).open("a", encoding="utf-8") as handle:
                handle.write(f"I starting conversation\nConversation ID: {self.id}\n")
        brain = Path.home() / ".gemini" / "antigravity-cli" / "brain" / self.id
        self.path = brain / ".system_generated" / "logs" / "transcript.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.step = 0

    def write(self, **step: Any) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        record = {"step_index": self.step, "status": "DONE", "created_at": stamp, **step}
        self.step += 1
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")

    def turn(self, line: str) -> str:
        """Answer one user line; returns what the terminal shows."""
        body = f"<USER_REQUEST>\n{line}\n</USER_REQUEST>"
        self.write(source="USER_EXPLICIT", type="USER_INPUT", content=body)
        self.write(source="SYSTEM", type="CONVERSATION_HISTORY")
        if line.startswith("/") and " " not in line:
            return ""
        if line.startswith("fail"):
            self.write(source="SYSTEM", type="ERROR_MESSAGE", content="stand-in failure")
            return "Error: stand-in failure"
        if line.startswith("RUN: "):
            command = line[5:]
            call = {"name": "run_command", "args": {"CommandLine": command}}
            self.write(source="MODEL", type="PLANNER_RESPONSE", thinking="Running it.",
                       tool_calls=[call])  # fmt: skip
            done = subprocess.run(command, shell=True, capture_output=True, text=True)
            output = f"The command completed successfully.\nOutput:\n{done.stdout}"
            self.write(source="MODEL", type="RUN_COMMAND", content=output)
            reply = "Done: the command ran."
        else:
            reply = f"You said: {line}"
        self.write(source="MODEL", type="PLANNER_RESPONSE", content=reply)
        return reply


def main(argv: list[str]) -> int:
    log_file = flag(argv, "--log-file")
    if "-p" in argv:
        print(Conversation(log_file).turn(argv[argv.index("-p") + 1]))
        return 0
    session = Conversation(log_file)
    run = os.environ.get("HANGAR_RUN_ID", "-")
    print(f"{BANNER} · conversation {session.id} · run {run}", flush=True)
    while True:
        try:
            line = input("> ").strip()
        except EOFError:
            return 0
        if line == "/quit":
            return 0
        if line == "/clear":
            session = Conversation(log_file)
            print(f"New conversation {session.id}", flush=True)
        elif line:
            print(session.turn(line), flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
