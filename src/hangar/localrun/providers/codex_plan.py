"""Codex's plan mode in a discussion, seen through its app-server protocol (codex 0.171.0).

What the pinned Codex does (observed through the provider's proxy, never the TUI's screen):

- ``/plan`` or Shift+Tab switch the thread to *Plan* mode: the TUI sends
  ``thread/settings/update`` and each ``turn/start`` with ``collaborationMode.mode: "plan"``.
- When the model presents a plan in a ``<proposed_plan>`` block, the app-server emits
  ``item/completed`` with an item ``{type: "plan", id, text}`` (the plan's Markdown). The TUI
  then asks "Implement this plan?" with three answers.
- *Yes, implement this plan*: the TUI switches the thread back to ``default`` and sends
  ``turn/start`` with ``collaborationMode.mode: "default"`` and the input text
  :data:`IMPLEMENT_TEXT`, on the same thread (implement in the current context).
- *Yes, clear context and implement*: the TUI starts a new thread (``thread/start`` with
  ``sessionStartSource: "clear"``), writes the plan with ``fs/writeFile`` to
  ``$CODEX_HOME/attachments/<uuid>/approved-plan.md`` and sends ``turn/start`` on the new
  thread with the input "Read the approved plan at <that path> and implement it."
- *No, stay in Plan mode* sends nothing.

``update_plan`` (``turn/plan/updated``) is Codex's todo list, the agent's checklist — not a
plan to create an issue from — so it is never saved as the discussion's plan.

:class:`CodexPlanWatch` keeps each proposed plan as the discussion's plan
(``plan_proposed``) and is the proxy's gate: it holds either implement ``turn/start`` back
while :meth:`~hangar.localrun.providers.base.DiscussionHooks.native_handoff` shows the card
and binds the run (Codex waits for the answer meanwhile, LR-226); bound, the frame goes on
and the same session implements (LR-227); cancelled, the frame is dropped and hangar ends
Codex. Nothing is ever added to what Codex is sent (LR-229, LR-230).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hangar.localrun.providers.base import DiscussionHooks, HandoffResult, PlanHandoff
from hangar.model.run_messages import SOURCE_CODEX

IMPLEMENT_TEXT = "Implement the plan."
APPROVED_PLAN_FILE = "approved-plan.md"
_CLEAR_TEXT = re.compile(r"^Read the approved plan at (?P<path>.+) and implement it\.$")


@dataclass(frozen=True)
class _Plan:
    thread_id: str
    turn_id: str
    item_id: str
    text: str

    @property
    def source_key(self) -> str:
        return f"thread:{self.thread_id}:turn:{self.turn_id}:plan:{self.item_id}"


def _load(text: str) -> dict[str, Any]:
    try:
        frame = json.loads(text)
    except ValueError:
        return {}
    return frame if isinstance(frame, dict) else {}


def _input_text(params: dict[str, Any]) -> str:
    parts = params.get("input") or []
    return "\n".join(
        str(p.get("text") or "") for p in parts if isinstance(p, dict) and p.get("type") == "text"
    ).strip()


@dataclass
class CodexPlanWatch:
    hooks: DiscussionHooks
    plans: dict[str, _Plan] = field(default_factory=dict)
    """The latest proposed plan of each thread."""
    approved_files: dict[str, str] = field(default_factory=dict)
    """``approved-plan.md`` paths the TUI wrote → the plan written there."""
    main_threads: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- what the app-server says ---------------------------------------------------------
    def server_frame(self, text: str) -> None:
        if '"item/completed"' not in text and '"thread/started"' not in text:
            return  # the hot path: most frames are deltas
        frame = _load(text)
        params = frame.get("params") or {}
        if frame.get("method") == "thread/started":
            thread = params.get("thread") or {}
            mine = thread.get("threadSource") in (None, "user")
            if thread.get("id") and not thread.get("ephemeral") and mine:
                self.main_threads.add(str(thread["id"]))
                self.hooks.session_started(str(thread["id"]))
            return
        item = params.get("item") or {}
        if frame.get("method") != "item/completed" or item.get("type") != "plan":
            return
        plan_text = str(item.get("text") or "")
        plan = _Plan(
            str(params.get("threadId") or ""),
            str(params.get("turnId") or ""),
            str(item.get("id") or ""),
            plan_text,
        )
        with self._lock:
            self.plans[plan.thread_id] = plan
        if plan_text.strip():
            self.hooks.plan_proposed(plan_text, SOURCE_CODEX, plan.source_key)

    # -- what the TUI sends: the proxy's gate ---------------------------------------------
    def gate(self, text: str) -> Callable[[], str | None] | None:
        if '"turn/start"' not in text and '"fs/writeFile"' not in text:
            return None
        frame = _load(text)
        params = frame.get("params") or {}
        if frame.get("method") == "fs/writeFile":
            self._approved_file(params)
            return None
        if frame.get("method") != "turn/start":
            return None
        handoff = self._implement(params)
        if handoff is None:
            return None

        def wait() -> str | None:
            if self.hooks.native_handoff(handoff) is HandoffResult.BOUND:
                return text
            self.hooks.end_provider()
            return None  # the action never reaches Codex

        return wait

    def _approved_file(self, params: dict[str, Any]) -> None:
        path = str(params.get("path") or "")
        if not path.endswith("/" + APPROVED_PLAN_FILE):
            return
        try:
            plan = base64.b64decode(str(params.get("dataBase64") or ""), validate=True)
        except (binascii.Error, ValueError):
            return
        with self._lock:
            self.approved_files[path] = plan.decode("utf-8", "replace")

    def _implement(self, params: dict[str, Any]) -> PlanHandoff | None:
        """The handoff a ``turn/start`` is, if it is one of the TUI's implement actions."""
        said = _input_text(params)
        mode = (params.get("collaborationMode") or {}).get("mode")
        thread_id = str(params.get("threadId") or "")
        with self._lock:
            plan = self.plans.get(thread_id)
            if said == IMPLEMENT_TEXT and mode == "default" and plan is not None:
                del self.plans[thread_id]
                return PlanHandoff(plan.text, SOURCE_CODEX, plan.source_key, "current")
            cleared = _CLEAR_TEXT.match(said)
            if cleared is None or cleared.group("path") not in self.approved_files:
                return None
            text = self.approved_files.pop(cleared.group("path"))
            source = next((p for p in self.plans.values() if p.text == text), None)
        key = source.source_key if source is not None else f"thread:{thread_id}:approved-plan"
        return PlanHandoff(text, SOURCE_CODEX, key, "clear")
