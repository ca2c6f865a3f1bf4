#!/usr/bin/env python3
"""A scripted stand-in adapter: each argument is one step, run in order.

Steps (``NAME:VALUE``):

- ``emit:JSON`` — one event line on the event channel; ``raw:TEXT`` — bytes as given (Python
  escapes such as ``\\n`` decoded), no newline added; ``half:TEXT`` — the same, then exit
- ``flood:N`` — N text events ``flood:1..N`` (content ``event i``)
- ``big:N`` — one line of N bytes that is not an event
- ``turn:KEY`` — a user_input and a final of turn KEY (keys from KEY: stable)
- ``timekey`` — a text event whose key is the current time (an adapter that breaks LR-161)
- ``usage:MODEL`` — one usage increment of 10 in / 5 out
- ``env`` — a text event whose content is the JSON of every ``HANGAR_*`` variable (the
  token replaced by ``token kind``: ``run-scoped`` or ``other``)
- ``tty`` — a text event saying whether stdin is a terminal
- ``stderr:TEXT`` — a line of diagnostics on the log channel
- ``stdout:TEXT`` — a line on stdout itself (garbage when stdout is the event channel)
- ``ask:PROMPT`` — print PROMPT, read one line from stdin (the terminal, for a PTY adapter),
  report it as user_input and a final ``you said …`` of turn ``ask``
- ``handoff:ID`` — ``handoff_ready``, then wait for one control frame and report it back as a
  text event ``received`` (content: the frame); after ``cancelled`` exit 0 at once
- ``pid:PATH`` — write the process id to PATH
- ``ignore-int`` — ignore SIGINT from now on; ``forever`` — sleep until killed
- ``sleep:SECONDS``; ``exit:N``
"""

import json
import os
import signal
import sys
import time
from pathlib import Path


def channel(name: str, default: int) -> int:
    return int(os.environ.get(f"HANGAR_LOCALRUN_{name}_FD", default))


EVENTS = channel("EVENTS", 1)
CONTROL = channel("CONTROL", 0)
LOG = channel("LOG", 2)


def write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def emit(event: dict) -> None:
    write(EVENTS, (json.dumps(event) + "\n").encode())


def text(key: str, content: str) -> None:
    emit({"type": "text", "source": "scripted", "source_key": key, "content": content})


def read_frame() -> bytes:
    line = b""
    while not line.endswith(b"\n"):
        chunk = os.read(CONTROL, 1)
        if not chunk:
            break
        line += chunk
    return line


def main(steps: list[str]) -> int:
    for step in steps:
        name, _, value = step.partition(":")
        if name == "emit":
            write(EVENTS, value.encode() + b"\n")
        elif name in ("raw", "half"):
            write(EVENTS, value.encode().decode("unicode_escape").encode("latin-1"))
            if name == "half":
                return 0
        elif name == "flood":
            batch = []
            for i in range(1, int(value) + 1):
                batch.append(
                    json.dumps(
                        {"type": "text", "source": "scripted", "source_key": f"flood:{i}",
                         "content": f"event {i}"}
                    )
                )  # fmt: skip
                if len(batch) == 1000:
                    write(EVENTS, ("\n".join(batch) + "\n").encode())
                    batch = []
            if batch:
                write(EVENTS, ("\n".join(batch) + "\n").encode())
        elif name == "big":
            write(EVENTS, b"x" * int(value) + b"\n")
        elif name == "turn":
            emit({"type": "user_input", "source": "scripted", "source_key": f"{value}:user",
                  "content": f"question {value}", "input": {"turnKey": value}})  # fmt: skip
            emit({"type": "final", "source": "scripted", "source_key": f"{value}:final",
                  "content": f"answer {value}", "input": {"turnKey": value}})  # fmt: skip
        elif name == "timekey":
            text(f"at:{time.time_ns()}", "a key made from the clock")
        elif name == "usage":
            emit({"type": "usage", "source_key": f"usage:{value}", "model": value,
                  "input_tokens": 10, "output_tokens": 5})  # fmt: skip
        elif name == "env":
            hangar = {k: v for k, v in os.environ.items() if k.startswith("HANGAR_")}
            if "HANGAR_TOKEN" in hangar:  # the log would mask its value: say what kind it is
                token = hangar.pop("HANGAR_TOKEN")
                hangar["token kind"] = "run-scoped" if token.startswith("hgrun_") else "other"
            text("env", json.dumps(hangar, sort_keys=True))
        elif name == "tty":
            text("tty", f"stdin is a terminal: {os.isatty(0)}")
        elif name == "stderr":
            write(LOG, value.encode() + b"\n")
        elif name == "stdout":
            write(1, value.encode() + b"\n")
        elif name == "ask":
            sys.stdout.write(value)
            sys.stdout.flush()
            said = sys.stdin.readline().strip()
            emit({"type": "user_input", "source": "scripted", "source_key": "ask:user",
                  "content": said, "input": {"turnKey": "ask"}})  # fmt: skip
            emit({"type": "final", "source": "scripted", "source_key": "ask:final",
                  "content": f"you said {said}", "input": {"turnKey": "ask"}})  # fmt: skip
            print(f"you said {said}", flush=True)
        elif name == "handoff":
            emit({"type": "handoff_ready", "handoff_id": value, "plan_source_key": "plan:1",
                  "context": "current"})  # fmt: skip
            frame = read_frame()
            text(f"received:{value}", frame.decode().strip())
            if b'"cancelled"' in frame:
                return 0
        elif name == "pid":
            Path(value).write_text(str(os.getpid()))
        elif name == "ignore-int":
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        elif name == "forever":
            while True:
                time.sleep(3600)
        elif name == "sleep":
            time.sleep(float(value))
        elif name == "exit":
            return int(value)
        else:
            write(LOG, f"scripted adapter: unknown step {step!r}\n".encode())
            return 64
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
