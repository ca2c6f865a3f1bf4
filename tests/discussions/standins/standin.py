"""Scripted stand-ins for the Cursor agent, Kiro and Antigravity CLIs (not published to a
package registry), for discussions: plan mode on top of hangar's stand-ins in the test kit.

Each is a small line-based terminal program that writes its session where and as the kit's
stand-ins do (:mod:`hangar.testing.cursor_standin`, :mod:`~hangar.testing.kiro_standin`,
:mod:`~hangar.testing.agy_standin`: the public fixtures' formats), plus the plan-mode records
hangar's providers read, which the providers' docstrings describe. It takes its replies from
the JSON list in ``$STANDIN_REPLIES`` — ``{"text": …, "think"?: …, "tool"?: {"name", "args",
"result"}}`` or ``{"plan": …}`` — and appends what it was given (argv, lines, mode) to
``$STANDIN_LOG``.

A ``plan`` reply in plan mode proposes the plan and asks "Implement this plan?"; ``y`` (current
context) or ``c`` (clear context) records the approval, then after the "model" has answered
(``IMPLEMENT_LATENCY`` seconds, as a real model call takes) it records "Implementing the
plan." as the turn's answer.
"""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from hangar.testing import agy_standin, cursor_standin, kiro_standin
from hangar.testing.standin_args import flag

IMPLEMENT_LATENCY = 1.5


def log(event: dict[str, Any]) -> None:
    path = os.environ.get("STANDIN_LOG")
    if path:
        with Path(path).open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(event) + "\n")


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
        self.chat = cursor_standin.Chat(chat)  # the transcript where Cursor writes it
        self.plan_mode = flag(argv, "--mode") == "plan" or "--plan" in argv

    def write(self, record: dict[str, Any]) -> None:
        self.chat.write(record)

    def user(self, text: str) -> None:
        self.chat.say("user", {"type": "text", "text": f"<user_query>\n{text}\n</user_query>"})

    def answer(self, text: str, think: str | None, tool: dict[str, Any] | None) -> None:
        if think or tool:
            blocks: list[dict[str, Any]] = []
            if think:
                blocks.append({"type": "thinking", "thinking": think})
            if tool:
                blocks.append({"type": "tool_use", "name": tool["name"], "input": tool["args"]})
            self.chat.say("assistant", *blocks)
        if tool:
            result = [{"type": "text", "text": tool["result"]}]
            self.chat.say("user", {"type": "tool_result", "tool_use_id": "t1", "content": result})
        self.chat.say("assistant", {"type": "text", "text": text})
        self.write({"type": "turn_ended", "status": "success"})

    def plan(self, text: str) -> None:
        call = {"type": "tool_use", "name": "CreatePlan", "input": {"plan": text}}
        self.chat.say("assistant", call)
        self.write({"type": "turn_ended", "status": "success"})

    def approved(self, text: str, context: str) -> None:
        self.write({"type": "plan_approved", "plan": text, "context": context})


class Agy(Session):
    name = "agy"

    def __init__(self, argv: list[str]) -> None:
        super().__init__(argv)
        # The step log where agy keeps it, its id logged to --log-file.
        self.conversation = agy_standin.Conversation(flag(argv, "--log-file"))
        self.plan_mode = flag(argv, "--mode") == "plan"

    def write(self, **step: Any) -> None:
        self.conversation.write(**step)

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
        # The folder's conversation row where Kiro keeps it (resumed with --resume).
        self.conversation = kiro_standin.Conversation(resume="--resume" in argv or "-r" in argv)
        self.pending: dict[str, Any] = {}

    def entry(self, user: dict[str, Any], assistant: dict[str, Any]) -> None:
        self.conversation.entry(user, assistant)

    def user(self, text: str) -> None:
        self.pending = {"Prompt": {"prompt": text}}

    def answer(self, text: str, think: str | None, tool: dict[str, Any] | None) -> None:
        if tool:
            use = {"id": "tool-1", "name": tool["name"], "args": tool["args"]}
            reply = {"message_id": str(uuid.uuid4()), "content": "", "tool_uses": [use]}
            self.entry(self.pending, {"ToolUse": reply})
            result = {"tool_use_id": "tool-1", "content": [{"Text": tool["result"]}],
                      "status": "Success"}  # fmt: skip
            self.pending = {"ToolUseResults": {"tool_use_results": [result]}}
        response = {"message_id": str(uuid.uuid4()), "content": text}
        self.entry(self.pending, {"Response": response})

    def plan(self, text: str) -> None:
        response = {"message_id": str(uuid.uuid4()), "content": text}
        self.entry(self.pending, {"PlanResponse": response})

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
