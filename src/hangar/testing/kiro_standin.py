"""A scripted **stand-in** for the Kiro CLI (``kiro-cli chat``), for tests only.

The real CLI is not in the package registries this project installs from, so provider tests
run this instead. It writes what Kiro CLI 1.x writes where it writes it — the folder's row of
``conversations_v2`` (``key`` = the working directory, ``conversation_id``, ``value`` = the
whole payload ``{conversation_id, history: [{user, assistant}]}`` in the public fixture
format) in ``$XDG_DATA_HOME`` (or ``~/.local/share``) ``/kiro-cli/data.sqlite3``, rewritten
after every turn — keeps that store open while it runs, as the real CLI does, and answers from
a script instead of a model (each answer takes :data:`MODEL_LATENCY`, as a model call does):

- ``kiro-cli chat [--resume]`` is the interactive loop on the terminal; ``--resume`` continues
  the folder's conversation, else a new conversation (a new id) takes the folder's row;
- a line ``RUN: CMD`` runs ``CMD`` with ``execute_bash`` (a ``ToolUse`` entry, then its real
  output in ``ToolUseResults`` and "Done: the command ran.");
- ``fail …``: the tool call fails (``ToolUseResults`` with ``status: "Error"``) and the answer
  says so;
- ``/clear`` empties the conversation's history and keeps its id (what Kiro CLI's own source
  does); ``/quit`` (or end of input) exits; any other ``/…`` line is a slash command Kiro
  handles itself: printed, never stored;
- anything else is answered "You said: …";
- ``kiro-cli chat --no-interactive PROMPT`` answers one prompt in a new conversation and exits.

The banner shows the conversation id and ``HANGAR_RUN_ID`` (what ``hangar run`` gave it).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

BANNER = "Kiro CLI (hangar test stand-in)"
MODEL_LATENCY = 0.3


def store_path() -> Path:
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data, "kiro-cli", "data.sqlite3")


class Conversation:
    def __init__(self, resume: bool) -> None:
        path = store_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        self.store = sqlite3.connect(path)  # open for as long as the CLI runs
        self.store.execute(
            "CREATE TABLE IF NOT EXISTS conversations_v2 (key TEXT PRIMARY KEY, "
            "conversation_id TEXT NOT NULL, value TEXT NOT NULL, created_at INTEGER NOT NULL, "
            "updated_at INTEGER NOT NULL)"
        )
        self.store.commit()
        self.key = str(Path.cwd())
        row = self.store.execute(
            "SELECT conversation_id, value FROM conversations_v2 WHERE key = ?", (self.key,)
        ).fetchone()
        if row and resume:
            self.id, self.history = str(row[0]), list(json.loads(row[1])["history"])
        else:
            self.id, self.history = str(uuid.uuid4()), []

    def save(self) -> None:
        payload = {"conversation_id": self.id, "history": self.history}
        now = int(time.time() * 1000)
        self.store.execute(
            "INSERT INTO conversations_v2 VALUES (?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET "
            "conversation_id = excluded.conversation_id, value = excluded.value, "
            "updated_at = excluded.updated_at",
            (self.key, self.id, json.dumps(payload), now, now),
        )
        self.store.commit()

    def entry(self, user: dict[str, Any], assistant: dict[str, Any]) -> None:
        env = {"env_state": {"current_working_directory": self.key}}
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.history.append(
            {
                "user": {"env_context": env, "content": user, "timestamp": stamp},
                "assistant": assistant,
                "request_metadata": {"stream_end_timestamp_ms": int(time.time() * 1000)},
            }
        )
        self.save()

    def turn(self, line: str) -> str:
        """Answer one user line; returns what the terminal shows."""
        time.sleep(MODEL_LATENCY)
        prompt = {"Prompt": {"prompt": line}}
        if line.startswith(("RUN: ", "fail")):
            command = line[5:] if line.startswith("RUN: ") else "false"
            call = {"id": f"tooluse_{uuid.uuid4().hex[:12]}", "name": "execute_bash",
                    "args": {"command": command}}  # fmt: skip
            reply = {"message_id": str(uuid.uuid4()), "content": "", "tool_uses": [call]}
            self.entry(prompt, {"ToolUse": reply})
            done = subprocess.run(command, shell=True, capture_output=True, text=True)
            failed = done.returncode != 0
            output = "stand-in failure" if failed else done.stdout
            result = {"tool_use_id": call["id"], "content": [{"Text": output}],
                      "status": "Error" if failed else "Success"}  # fmt: skip
            answer = "The command failed." if failed else "Done: the command ran."
            user: dict[str, Any] = {"ToolUseResults": {"tool_use_results": [result]}}
        else:
            answer, user = f"You said: {line}", prompt
        self.entry(user, {"Response": {"message_id": str(uuid.uuid4()), "content": answer}})
        return answer


def main(argv: list[str]) -> int:
    args = argv[1:] if argv[:1] == ["chat"] else argv
    if "--no-interactive" in args:
        prompt = next(a for a in args if a != "--no-interactive" and not a.startswith("-"))
        print(Conversation(resume=False).turn(prompt))
        return 0
    session = Conversation(resume="--resume" in args or "-r" in args)
    run = os.environ.get("HANGAR_RUN_ID", "-")
    print(f"{BANNER} · conversation {session.id} · run {run}", flush=True)
    while True:
        try:
            line = input("> ").strip()
        except EOFError:
            return 0
        if line in ("/quit", "/exit", "/q"):
            return 0
        if line == "/clear":
            session.history = []
            print("Conversation history cleared.", flush=True)
        elif line.startswith("/"):
            print(f"(stand-in: {line} is handled by the CLI itself)", flush=True)
        elif line:
            print(session.turn(line), flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
