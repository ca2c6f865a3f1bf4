"""Scenarios: the ordered script of model turns the fake model server plays.

A scenario is a YAML (or JSON) mapping::

    name: shell-roundtrip
    description: Run one shell command, then answer in text.
    title: Write a marker file        # optional: answer to side requests (session titles)
    workspace:                        # optional: how run_agent prepares the cwd
      git: true                       #   git init + one commit of `files`
      files: {README.md: "# demo\\n"}
      worktree: feature-x             #   optional: run in a new worktree on this branch
    turns:
      - shell: echo hello > marker.txt
        reasoning: The user wants a file.   # optional thinking streamed before the call
      - text: "Done: the command ran."

Each turn answers one model request and holds exactly one action:

- ``text: str`` — a streamed reply (in deltas) that ends the agent's turn;
- ``shell: str`` — one call to the shell tool the request offers;
- ``plan: {items: [{content, status[, priority, active_form]}], explanation?}`` (or just the
  list) — one call to the plan/todo tool offered, the neutral items rendered into its shape;
  ``status`` is ``pending | in_progress | completed | cancelled``;
- ``write: {path, content}``, ``edit: {path, old, new}``, ``read: {path}`` — file tools, with
  a shell command as fallback where the CLI offers no such tool;
- ``error: {status, message}`` — the request fails with that HTTP status (repeated, without
  consuming more script, for the CLI's retries of the same request);
- ``call: {<tool name>: {arguments}, …}`` — one call to the first of the named tools the
  request offers, with exactly those arguments (for what the neutral roles cannot say: an
  invalid update, a sub-agent task, a tool call the CLI will reject);
- ``forced_call: {tool: <name>, arguments: {…}}`` — one call to that tool even when the
  request does not offer it (a call the CLI must refuse, e.g. one its policy denies);
- ``stall: true`` — the request is accepted and never answered (a model that hangs): the
  connection stays open until the client gives up or the server stops.

Any turn may add ``reasoning: str``; a tool turn may add ``text`` streamed before the call.
Any answered turn may add ``delay: seconds``: the stream pauses that long half-way (after the
first deltas), so a test can act while a reply is still streaming.
When the script runs out, every further request gets the text
``fake model: scenario exhausted`` so a CLI ends its turn instead of hanging.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar

import yaml

from hangar.errors import HangarError

ACTIONS = (
    "text",
    "shell",
    "plan",
    "write",
    "edit",
    "read",
    "call",
    "forced_call",
    "error",
    "stall",
)
TOOL_ROLES = ("shell", "plan", "write", "edit", "read", "call", "forced_call")
PLAN_STATUSES = ("pending", "in_progress", "completed", "cancelled")
EXHAUSTED_TEXT = "fake model: scenario exhausted"


@dataclass(eq=False)
class ScenarioError(HangarError):
    """A scenario file that does not follow the format above."""

    source: str = ""
    problem: str = ""
    code: ClassVar[str] = "bad_scenario"

    def render(self) -> str:
        return f"{self.source}: {self.problem}"


@dataclass(frozen=True)
class PlanItem:
    content: str
    status: str
    priority: str = "medium"
    active_form: str | None = None


@dataclass(frozen=True)
class ToolCall:
    """A tool call by role; ``args`` holds the role's neutral arguments (see module doc)."""

    role: str
    args: Mapping[str, Any]
    plan: tuple[PlanItem, ...] = ()


@dataclass(frozen=True)
class Turn:
    text: str | None = None
    reasoning: str | None = None
    tool: ToolCall | None = None
    error_status: int | None = None
    error_message: str = ""
    stall: bool = False
    delay: float = 0.0


@dataclass(frozen=True)
class Workspace:
    git: bool = False
    files: Mapping[str, str] = field(default_factory=dict)
    worktree: str | None = None


@dataclass(frozen=True)
class Scenario:
    name: str
    turns: tuple[Turn, ...]
    description: str = ""
    title: str = "Fake session"
    workspace: Workspace = field(default_factory=Workspace)
    raw: Mapping[str, Any] = field(default_factory=dict)


def _plan_items(source: str, value: Any) -> tuple[tuple[PlanItem, ...], str | None]:
    explanation = None
    if isinstance(value, Mapping):
        explanation = value.get("explanation")
        value = value.get("items")
    if not isinstance(value, list):
        raise ScenarioError(source=source, problem="plan needs a list of items")
    items = []
    for raw in value:
        if not isinstance(raw, Mapping) or "content" not in raw:
            raise ScenarioError(source=source, problem=f"plan item needs content: {raw!r}")
        status = raw.get("status", "pending")
        if status not in PLAN_STATUSES:
            raise ScenarioError(
                source=source, problem=f"plan status {status!r} not in {PLAN_STATUSES}"
            )
        items.append(
            PlanItem(
                content=str(raw["content"]),
                status=status,
                priority=str(raw.get("priority", "medium")),
                active_form=raw.get("active_form"),
            )
        )
    return tuple(items), explanation


def _turn(source: str, raw: Any) -> Turn:
    if not isinstance(raw, Mapping):
        raise ScenarioError(source=source, problem=f"a turn must be a mapping, got {raw!r}")
    unknown = set(raw) - {*ACTIONS, "reasoning", "delay"}
    if unknown:
        raise ScenarioError(source=source, problem=f"unknown turn keys {sorted(unknown)}")
    roles = [key for key in TOOL_ROLES if key in raw]
    actions = roles + [key for key in ("error", "stall") if key in raw]
    if len(actions) > 1 or (not actions and "text" not in raw):
        raise ScenarioError(
            source=source, problem=f"a turn holds exactly one action, got {sorted(raw)}"
        )
    reasoning = raw.get("reasoning")
    text = raw.get("text")
    delay = raw.get("delay", 0)
    if not isinstance(delay, int | float) or isinstance(delay, bool) or not 0 <= delay <= 600:
        raise ScenarioError(source=source, problem=f"delay must be 0..600 seconds: {delay!r}")
    if "stall" in raw:
        if raw["stall"] is not True:
            raise ScenarioError(source=source, problem="stall takes `true`")
        return Turn(stall=True)
    if "error" in raw:
        error = raw["error"] or {}
        return Turn(
            error_status=int(error.get("status", 500)),
            error_message=str(error.get("message", "fake model: scripted failure")),
        )
    if not roles:
        return Turn(text=str(text), reasoning=reasoning, delay=float(delay))
    role = roles[0]
    value = raw[role]
    if role == "plan":
        items, explanation = _plan_items(source, value)
        call = ToolCall(role, {"explanation": explanation}, plan=items)
    elif role == "shell":
        call = ToolCall(role, {"command": str(value)})
    elif role == "call":
        if not isinstance(value, Mapping) or not value:
            raise ScenarioError(source=source, problem="call needs {tool name: arguments}")
        for name, arguments in value.items():
            if not isinstance(arguments, Mapping):
                raise ScenarioError(source=source, problem=f"call {name}: arguments mapping")
        call = ToolCall(role, {str(k): dict(v) for k, v in value.items()})
    elif role == "forced_call":
        if not isinstance(value, Mapping) or not isinstance(value.get("tool"), str):
            raise ScenarioError(source=source, problem="forced_call needs {tool, arguments}")
        call = ToolCall(
            role, {"tool": value["tool"], "arguments": dict(value.get("arguments") or {})}
        )
    else:
        required = {"write": ("path", "content"), "edit": ("path", "old", "new"), "read": ("path",)}
        if not isinstance(value, Mapping) or any(k not in value for k in required[role]):
            raise ScenarioError(source=source, problem=f"{role} needs {required[role]}")
        call = ToolCall(role, dict(value))
    return Turn(text=text, reasoning=reasoning, tool=call, delay=float(delay))


def scenario_from_dict(raw: Mapping[str, Any], source: str = "<scenario>") -> Scenario:
    """Validate and build a :class:`Scenario`; raises :class:`ScenarioError`."""
    turns = raw.get("turns")
    if not isinstance(turns, list):
        raise ScenarioError(source=source, problem="needs a `turns` list")
    workspace = raw.get("workspace") or {}
    return Scenario(
        name=str(raw.get("name", Path(source).stem)),
        description=str(raw.get("description", "")),
        title=str(raw.get("title", "Fake session")),
        workspace=Workspace(
            git=bool(workspace.get("git", False)),
            files=dict(workspace.get("files") or {}),
            worktree=workspace.get("worktree"),
        ),
        turns=tuple(_turn(f"{source} turn {i + 1}", turn) for i, turn in enumerate(turns)),
        raw=dict(raw),
    )


def load_scenario(path: Path) -> Scenario:
    """Load a scenario file (YAML; JSON is YAML too)."""
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(raw, Mapping):
        raise ScenarioError(source=str(path), problem="a scenario file holds one mapping")
    return scenario_from_dict(raw, str(path))


def builtin_scenario(name: str) -> Scenario:
    """A scenario shipped in ``hangar/testing/scenarios/<name>.yaml``."""
    resource = resources.files("hangar.testing") / "scenarios" / f"{name}.yaml"
    raw = yaml.safe_load(resource.read_text(encoding="utf-8"))
    return scenario_from_dict(raw, f"{name}.yaml")
