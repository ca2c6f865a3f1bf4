"""A scripted **stand-in** for the Cursor agent CLI (``cursor-agent``), for tests only.

The real CLI is not in the package registries this project installs from, so provider tests
run this instead. It writes what the real one writes where the real one writes it — a chat
transcript at ``$CURSOR_CONFIG_DIR`` (or ``~/.cursor``) ``/projects/<cwd with "/" as
"-">/agent-transcripts/<chatId>/<chatId>.jsonl``, lines ``{"role", "message": {"content":
[blocks]}}`` with the user's text in ``<user_query>`` and a ``{"type": "turn_ended",
"status"}`` marker — and answers from a script instead of a model:

- ``cursor-agent create-chat`` prints a new chat id;
- ``cursor-agent [--resume ID] …`` is the interactive loop on the terminal: a line
  ``RUN: CMD`` runs ``CMD`` with the Bash tool (tool_use, its real output as tool_result,
  then "Done: the command ran."); ``fail …`` ends the turn with ``status: "error"``;
  ``/quit`` (or end of input) exits; ``/new-chat`` starts a new chat inside the TUI (a new
  transcript); any other line starting with ``/`` is a slash command, recorded as the user's
  text and answered with nothing (or, with arguments, "Ran /cmd with: …"); anything else is
  answered "You said: …";
- ``cursor-agent -p PROMPT`` answers one prompt in a new chat and exits.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

BANNER = "Cursor Agent (hangar test stand-in)"


def transcript_path(chat: str, cwd: Path) -> Path:
    base = os.environ.get("CURSOR_CONFIG_DIR") or str(Path.home() / ".cursor")
    project = str(cwd).strip("/").replace("/", "-")
    return Path(base, "projects", project, "agent-transcripts", chat, f"{chat}.jsonl")


class Chat:
    def __init__(self, chat: str) -> None:
        self.path = transcript_path(chat, Path.cwd())
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def write(self, record: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")

    def say(self, role: str, *blocks: dict[str, Any]) -> None:
        self.write({"role": role, "message": {"content": list(blocks)}})

    def turn(self, line: str) -> str:
        """Answer one user line; returns what the terminal shows."""
        query = {"type": "text", "text": f"<user_query>\n{line}\n</user_query>"}
        self.say("user", query)
        if line.startswith("/") and " " not in line:
            return ""
        if line.startswith("/"):
            name, _, args = line.partition(" ")
            reply = f"Ran {name} with: {args}"
            self.say("assistant", {"type": "text", "text": reply})
            self.write({"type": "turn_ended", "status": "success"})
            return reply
        if line.startswith("fail"):
            self.write({"type": "turn_ended", "status": "error", "error": "stand-in failure"})
            return "Error: stand-in failure"
        if line.startswith("RUN: "):
            command = line[5:]
            use = {"type": "tool_use", "name": "Bash", "input": {"command": command}}
            self.say("assistant", {"type": "text", "text": "Running it."}, use)
            done = subprocess.run(command, shell=True, capture_output=True, text=True)
            result = {"type": "tool_result", "content": [{"type": "text", "text": done.stdout}]}
            self.say("user", result)
            reply = "Done: the command ran."
        else:
            reply = f"You said: {line}"
        self.say("assistant", {"type": "text", "text": reply})
        self.write({"type": "turn_ended", "status": "success"})
        return reply


def main(argv: list[str]) -> int:
    if argv[:1] == ["create-chat"]:
        print(uuid.uuid4())
        return 0
    if "-p" in argv:
        print(Chat(str(uuid.uuid4())).turn(argv[argv.index("-p") + 1]))
        return 0
    chat = argv[argv.index("--resume") + 1] if "--resume" in argv else str(uuid.uuid4())
    session = Chat(chat)
    run = os.environ.get("HANGAR_RUN_ID", "-")
    print(f"{BANNER} · chat {chat} · args {' '.join(argv)} · run {run}", flush=True)
    while True:
        try:
            line = input("→ ").strip()
        except EOFError:
            return 0
        if line == "/quit":
            return 0
        if line == "/new-chat":
            chat = str(uuid.uuid4())
            session = Chat(chat)
            print(f"New chat {chat}", flush=True)
        elif line:
            print(session.turn(line), flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
