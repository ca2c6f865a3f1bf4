"""Scripted stand-ins for the Cursor agent, Kiro and Antigravity CLIs (not installable here).

Each is a small line-based terminal program that writes its session in the same format as
the public fixtures of that CLI (and the plan-mode records hangar's providers read, which the
providers' docstrings describe): Cursor's transcript JSONL, Kiro's ``conversations_v2`` row
in its SQLite store, Antigravity's step log. It takes its replies from the JSON list in
``$STANDIN_REPLIES`` — ``{"text": …, "think"?: …, "tool"?: {"name", "args", "result"}}`` or
``{"plan": …}`` — and appends what it was given (argv, lines, mode) to ``$STANDIN_LOG``.

A ``plan`` reply in plan mode proposes the plan and asks "Implement this plan?"; ``y`` (current
context) or ``c`` (clear context) records the approval, then after the "model" has answered
(``IMPLEMENT_LATENCY`` seconds, as a real model call takes) it records "Implementing the
plan." as the turn's answer.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
import uuid
from pathlib import Path
from typing import Any

IMPLEMENT_LATENCY = 1.5


def log(event: dict[str, Any]) -> None:
    path = os.environ.get("STANDIN_LOG")
    if path:
        with Path(path).open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(event) + "\n")


def flag(argv: list[str], name: str) -> str | None:
    for index, arg in enumerate(argv):
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
        if arg == name and index + 1 < len(argv):
            return argv[index + 1]
    return None


def home() -> Path:
    return Path(os.environ.get("HOME") or "~").expanduser()


class Session:
    """How one CLI writes its records (subclasses: the three formats)."""

    name = "cli"

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.plan_mode = False

    def user(self, text: str) -> None: ...
    def answer(self, text: str, think: str | None, tool: dict[str, Any] | None) -> None: ...
    def plan(self, text: str) -> None: ...
    def approved(self, text: str, context: str) -> None: ...


class Cursor(Session):
    name = "cursor-agent"

    def __init__(self, argv: list[str]) -> None:
        super().__init__(argv)
        chat = flag(argv, "--resume")
        if chat is None:
            raise SystemExit("stand-in cursor-agent: run `create-chat` first, then --resume ID")
        root = Path(os.environ.get("CURSOR_CONFIG_DIR") or home() / ".cursor")
        folder = root / "projects" / str(Path.cwd()).strip("/").replace("/", "-")
        self.file = folder / "agent-transcripts" / chat / f"{chat}.jsonl"
        self.file.parent.mkdir(parents=True, exist_ok=True)
        self.plan_mode = flag(argv, "--mode") == "plan" or "--plan" in argv

    def write(self, record: dict[str, Any]) -> None:
        with self.file.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")

    def user(self, text: str) -> None:
        body = f"<user_query>\n{text}\n</user_query>"
        self.write({"role": "user", "message": {"content": [{"type": "text", "text": body}]}})

    def answer(self, text: str, think: str | None, tool: dict[str, Any] | None) -> None:
        if think or tool:
            blocks: list[dict[str, Any]] = []
            if think:
                blocks.append({"type": "thinking", "thinking": think})
            if tool:
                blocks.append({"type": "tool_use", "name": tool["name"], "input": tool["args"]})
            self.write({"role": "assistant", "message": {"content": blocks}})
        if tool:
            result = [{"type": "text", "text": tool["result"]}]
            content = [{"type": "tool_result", "tool_use_id": "t1", "content": result}]
            self.write({"role": "user", "message": {"content": content}})
        self.write({"role": "assistant", "message": {"content": [{"type": "text", "text": text}]}})
        self.write({"type": "turn_ended", "status": "success"})

    def plan(self, text: str) -> None:
        call = {"type": "tool_use", "name": "CreatePlan", "input": {"plan": text}}
        self.write({"role": "assistant", "message": {"content": [call]}})
        self.write({"type": "turn_ended", "status": "success"})

    def approved(self, text: str, context: str) -> None:
        self.write({"type": "plan_approved", "plan": text, "context": context})


class Agy(Session):
    name = "agy"

    def __init__(self, argv: list[str]) -> None:
        super().__init__(argv)
        conversation = str(uuid.uuid4())
        log_file = flag(argv, "--log-file")
        if log_file:
            Path(log_file).write_text(f"starting\nConversation ID: {conversation}\n", "utf-8")
        logs = home() / ".gemini" / "antigravity-cli" / "brain" / conversation
        self.file = logs / ".system_generated" / "logs" / "transcript.jsonl"
        self.file.parent.mkdir(parents=True, exist_ok=True)
        self.step = 0
        self.plan_mode = flag(argv, "--mode") == "plan"

    def write(self, **step: Any) -> None:
        record = {"step_index": self.step, "status": "DONE", "created_at": "2026-12-01T00:00:00Z"}
        record.update(step)
        self.step += 1
        with self.file.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")

    def user(self, text: str) -> None:
        body = f"<USER_REQUEST>\n{text}\n</USER_REQUEST>"
        self.write(source="USER_EXPLICIT", type="USER_INPUT", content=body)
        self.write(source="SYSTEM", type="CONVERSATION_HISTORY")

    def answer(self, text: str, think: str | None, tool: dict[str, Any] | None) -> None:
        if tool:
            call = {"name": tool["name"], "args": tool["args"]}
            self.write(source="MODEL", type="PLANNER_RESPONSE", thinking=think, tool_calls=[call])
            self.write(source="MODEL", type="RUN_COMMAND", content=tool["result"])
            think = None
        self.write(source="MODEL", type="PLANNER_RESPONSE", thinking=think, content=text)

    def plan(self, text: str) -> None:
        self.write(source="MODEL", type="IMPLEMENTATION_PLAN", content=text)

    def approved(self, text: str, context: str) -> None:
        self.write(source="USER_EXPLICIT", type="PLAN_APPROVED", content=text, context=context)


class Kiro(Session):
    name = "kiro-cli"

    def __init__(self, argv: list[str]) -> None:
        super().__init__(argv)
        data = Path(os.environ.get("XDG_DATA_HOME") or home() / ".local" / "share")
        self.db = data / "kiro-cli" / "data.sqlite3"
        self.db.parent.mkdir(parents=True, exist_ok=True)
        self.key = str(Path.cwd())
        with sqlite3.connect(self.db) as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS conversations_v2 (key TEXT PRIMARY KEY, "
                "conversation_id TEXT, value TEXT, created_at INTEGER, updated_at INTEGER)"
            )
            row = conn.execute(
                "SELECT conversation_id, value FROM conversations_v2 WHERE key = ?", (self.key,)
            ).fetchone()
        if row and ("--resume" in argv or "-r" in argv):
            self.conversation, self.history = row[0], json.loads(row[1])["history"]
        else:
            self.conversation, self.history = str(uuid.uuid4()), []
        self.pending: dict[str, Any] = {}

    def save(self) -> None:
        payload = {"conversation_id": self.conversation, "history": self.history}
        now = int(time.time() * 1000)
        with sqlite3.connect(self.db) as conn:
            conn.execute(
                "INSERT INTO conversations_v2 VALUES (?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE "
                "SET conversation_id = excluded.conversation_id, value = excluded.value, "
                "updated_at = excluded.updated_at",
                (self.key, self.conversation, json.dumps(payload), now, now),
            )

    def entry(self, user: dict[str, Any], assistant: dict[str, Any]) -> None:
        env = {"env_state": {"current_working_directory": self.key}}
        self.history.append({"user": {"env_context": env, "content": user}, "assistant": assistant})
        self.save()

    def user(self, text: str) -> None:
        self.pending = {"Prompt": {"prompt": text}}

    def answer(self, text: str, think: str | None, tool: dict[str, Any] | None) -> None:
        if tool:
            use = {"id": "tool-1", "name": tool["name"], "args": tool["args"]}
            self.entry(self.pending, {"ToolUse": {"message_id": "m-tool", "content": "",
                                                  "tool_uses": [use]}})  # fmt: skip
            result = {"tool_use_id": "tool-1", "content": [{"Text": tool["result"]}],
                      "status": "Success"}  # fmt: skip
            self.pending = {"ToolUseResults": {"tool_use_results": [result]}}
        self.entry(self.pending, {"Response": {"message_id": f"m-{len(self.history)}",
                                               "content": text}})  # fmt: skip

    def plan(self, text: str) -> None:
        self.entry(self.pending, {"PlanResponse": {"message_id": "m-plan", "content": text}})

    def approved(self, text: str, context: str) -> None:
        self.entry({"ImplementPlan": {"plan": text, "context": context}}, {})


def main(kind: str) -> int:
    argv = sys.argv[1:]
    log({"argv": argv, "cwd": str(Path.cwd()), "pid": os.getpid()})
    if kind == "cursor" and argv[:1] == ["create-chat"]:
        print(uuid.uuid4())
        return 0
    session: Session = {"cursor": Cursor, "agy": Agy, "kiro": Kiro}[kind](argv)
    replies = json.loads(Path(os.environ["STANDIN_REPLIES"]).read_text("utf-8"))
    print(f"{session.name} (stand-in)", flush=True)
    while True:
        prompt = "[plan] > " if session.plan_mode else "> "
        try:
            line = input(prompt).strip()
        except EOFError:
            return 0
        log({"line": line, "plan_mode": session.plan_mode})
        if not line:
            continue
        if line == "/plan":
            session.plan_mode = True
            print(f"Switched to the {session.name} [plan] agent.", flush=True)
            continue
        session.user(line)
        reply = replies.pop(0) if replies else {"text": "(stand-in: no more replies)"}
        if "plan" in reply and session.plan_mode:
            session.plan(reply["plan"])
            print(reply["plan"], flush=True)
            choice = input("Implement this plan? [y] implement, [c] clear context, [n] no: ")
            log({"line": choice.strip(), "plan_mode": True})
            if choice.strip() in ("y", "c"):
                session.approved(reply["plan"], "clear" if choice.strip() == "c" else "current")
                print("Implementing…", flush=True)
                time.sleep(IMPLEMENT_LATENCY)  # the model's answer takes a while
                session.user("Implement the plan.")
                session.answer("Implementing the plan.", None, None)
                print("Implementing the plan.", flush=True)
            continue
        text = reply.get("text") or reply.get("plan") or ""
        session.answer(text, reply.get("think"), reply.get("tool"))
        print(text, flush=True)
