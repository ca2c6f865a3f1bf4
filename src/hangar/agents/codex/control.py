"""Codex's control facet: lifecycle and turns through Codex's own interfaces
(RW-162, RW-163, RW-169..172; continuing a thread: :mod:`hangar.agents.codex.live_turns`).

:class:`CodexControl` talks to the executor's one resident ``codex app-server``
(:mod:`hangar.agents.codex.resident`), started on first use through the device's launcher,
only when a ``codex`` executable is installed; :meth:`CodexControl.close` ends it when the
executor stops.

* ``archive`` → ``thread/archive`` (Codex moves the rollout to ``archived_sessions/``). On the
  exact error ``no rollout found for thread id`` the thread is stale: ``thread/delete`` removes
  the leftover record and the result is ``missing`` — never "archived" (RW-172).
* ``unarchive`` → ``thread/unarchive`` (the rollout goes back under ``sessions/``).
* ``rename`` → ``thread/name/set``; without an app-server, one line appended to
  ``$CODEX_HOME/session_index.jsonl`` exactly as Codex writes it (append-only, last one wins).
* ``delete`` → ``thread/delete``; a server that does not know the method answers
  ``unsupported`` from then on (the executor then moves the files into its trash itself).
  A delete that never answers ends the server (RW-176) unless a turn runs on it: then deletes
  stop using the agent until the server is restarted.
* ``create`` → ``thread/start`` then ``turn/start``; ``find_created`` → ``thread/list``,
  ``session_file`` → ``thread/read`` (:mod:`hangar.agents.codex.threads`, RW-281).
* ``fork`` → ``thread/fork {threadId, lastTurnId, cwd?, excludeTurns}``: Codex copies the
  history through that completed turn into a new thread (the source, also mid-turn, is left
  alone; Codex refuses a ``lastTurnId`` still in progress).
* ``session_files``/``import_session_files``: the rollout and its fork ancestors, verbatim, for
  a copy on another device (:mod:`hangar.agents.codex.transfer`).
* ``send``/``guidance``/``cancel``/``compact``/``goal``/``models`` → ``turn/start``,
  ``turn/steer``, ``turn/interrupt``, ``thread/compact/start``, ``thread/goal/get``,
  ``model/list``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path, PurePath
from typing import Any, ClassVar

from hangar.agents.codex import transfer
from hangar.agents.codex.app_server import AppServerError, AppServerTimeout, CodexAppServer
from hangar.agents.codex.live_turns import CodexTurns, CodexUnavailable
from hangar.agents.codex.resident import ResidentAppServer
from hangar.agents.codex.threads import find_started, rollout_path
from hangar.agents.control import (
    AgentControl,
    ControlResult,
    ForkedSession,
    Handle,
    Operation,
)
from hangar.agents.homes import AgentHome
from hangar.agents.launch import AgentLauncher
from hangar.agents.turns import (
    GuidanceOutcome,
    ModelOption,
    StartedTurn,
    TurnObserver,
    TurnRequest,
)
from hangar.agents.watchdog import DEFAULT_TIMEOUT
from hangar.errors import UsageError

VIA_APP_SERVER = "codex-app-server"
VIA_SESSION_INDEX = "codex-session-index"
VIA_THREAD_DELETE = "codex-thread-delete"
DELETE_TIMEOUT = 120.0


class CodexControl(AgentControl):
    runtime: ClassVar[str] = "codex"
    keeps_archive_state: ClassVar[bool] = True
    operations: ClassVar[frozenset[Operation]] = frozenset(
        {"send", "create", "cancel", "guidance", "compact", "goal", "models", "fork"}
    )

    def __init__(
        self,
        home: AgentHome,
        launcher: AgentLauncher,
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(home, launcher, settings)
        self.host = ResidentAppServer(launcher)
        timeout = float(self.settings.get("codex_turn_startup_timeout_seconds", DEFAULT_TIMEOUT))
        self.turns = CodexTurns(self.host, startup_timeout=timeout)
        self._has_delete = True
        self._installed: bool | None = None

    def server(self) -> CodexAppServer | None:
        """The resident app-server, started on first use; ``None`` when Codex is not
        installed."""
        if self._installed is None:
            self._installed = self.launcher.which("codex") is not None
        return self.host.get() if self._installed else None

    def close(self) -> None:
        self.host.close()

    def configure(self, environment: Mapping[str, str]) -> None:
        self.host.configure(environment)

    # -- turns ------------------------------------------------------------------------------
    def _thread(self, handle: Handle) -> str:
        thread = handle.get("threadId")
        if not thread:
            raise UsageError("this Codex task has no thread id to continue")
        if self.server() is None:
            raise CodexUnavailable()
        return thread

    def send(self, handle: Handle, request: TurnRequest, observer: TurnObserver) -> StartedTurn:
        return self.turns.send(self._thread(handle), request, observer)

    def create(
        self, cwd: Path, request: TurnRequest, observer: TurnObserver
    ) -> tuple[dict[str, str], StartedTurn]:
        if self.server() is None:
            raise CodexUnavailable()
        thread_id, started = self.turns.create(cwd, request, observer)
        return {"threadId": thread_id}, started

    def fork(
        self, handle: Handle, last_turn_id: str, cwd: Path | None, title: str | None = None
    ) -> ForkedSession:
        thread = self._thread(handle)
        server = self.server()
        assert server is not None
        params: dict[str, Any] = {
            "threadId": thread,
            "lastTurnId": last_turn_id,
            "excludeTurns": True,
        }
        if cwd is not None:
            params["cwd"] = str(cwd)
        forked = server.request("thread/fork", params).get("thread") or {}
        new_id = forked.get("id") if isinstance(forked, dict) else None
        if not isinstance(new_id, str) or not new_id:
            raise AppServerError(method="thread/fork", rpc_message="answered no thread id")
        path = forked.get("path")
        return ForkedSession({"threadId": new_id}, Path(path) if isinstance(path, str) else None)

    def session_files(self, handle: Handle, source_path: Path | None) -> dict[str, Path]:
        if source_path is None:
            raise UsageError("this Codex task has no rollout file to copy")
        return transfer.session_files(self.home.root, source_path)

    def import_session_files(self, files: Mapping[str, bytes]) -> list[Handle]:
        return [{"threadId": t} for t in transfer.import_files(self.home.root, files)]

    def find_created(self, cwd: Path, title: str, since: float) -> list[Handle] | None:
        server = self.server()
        if server is None:
            return None
        return [{"threadId": t} for t in find_started(server, cwd, title, since)]

    def session_file(self, handle: Handle) -> Path | None:
        thread = handle.get("threadId")
        server = self.server() if thread else None
        return rollout_path(server, str(thread)) if server is not None else None

    def guidance(self, handle: Handle, text: str, client_guidance_id: str) -> GuidanceOutcome:
        return self.turns.steer(self._thread(handle), text, client_guidance_id)

    def cancel(self, handle: Handle) -> bool:
        thread = handle.get("threadId")
        return bool(thread) and self.turns.interrupt(str(thread))

    def compact(self, handle: Handle, observer: TurnObserver, cwd: Path | None) -> StartedTurn:
        return self.turns.compact(self._thread(handle), observer)

    def goal(self, handle: Handle) -> dict[str, Any] | None:
        thread = self._thread(handle)
        server = self.server()
        assert server is not None
        if not self.turns.running(thread):
            server.request("thread/resume", {"threadId": thread, "excludeTurns": True})
        goal = server.request("thread/goal/get", {"threadId": thread}).get("goal")
        return goal if isinstance(goal, dict) else None

    def models(self) -> list[ModelOption]:
        server = self.server()
        if server is None:
            raise CodexUnavailable()
        found: list[ModelOption] = []
        cursor: str | None = None
        for _ in range(20):  # pages; a catalog is small
            params: dict[str, Any] = {"includeHidden": False}
            if cursor:
                params["cursor"] = cursor
            page = server.request("model/list", params)
            for entry in page.get("data") or []:
                if not isinstance(entry, dict):
                    continue
                efforts = tuple(
                    str(e.get("reasoningEffort"))
                    for e in entry.get("supportedReasoningEfforts") or []
                    if isinstance(e, dict) and e.get("reasoningEffort")
                )
                found.append(
                    ModelOption(
                        id=str(entry.get("model") or entry.get("id")),
                        display_name=str(entry.get("displayName") or entry.get("model")),
                        model_type="codex",
                        is_default=bool(entry.get("isDefault")),
                        efforts=efforts,
                    )
                )
            cursor = page.get("nextCursor")
            if not cursor:
                break
        return found

    # -- operations -------------------------------------------------------------------------
    def archive(self, handle: Handle, source_path: Path | None) -> ControlResult:
        return self._move("thread/archive", handle, source_path, archived=True)

    def unarchive(self, handle: Handle, source_path: Path | None) -> ControlResult:
        return self._move("thread/unarchive", handle, source_path, archived=False)

    def rename(self, handle: Handle, title: str) -> ControlResult:
        thread = handle.get("threadId")
        if not thread:
            return ControlResult("unsupported")
        done = self._call("thread/name/set", thread, name=title)
        if done.outcome != "unavailable":
            return done
        append_session_name(self.home.root, thread, title)
        return ControlResult("done", VIA_SESSION_INDEX)

    def can_delete(self, handle: Handle) -> bool:
        return bool(handle.get("threadId")) and self._has_delete and self.server() is not None

    def delete(self, handle: Handle) -> ControlResult:
        thread = handle.get("threadId")
        server = self.server() if thread and self._has_delete else None
        if not thread or server is None:
            return ControlResult("unsupported" if not thread else "unavailable")
        try:
            server.request("thread/delete", {"threadId": thread}, timeout=DELETE_TIMEOUT)
        except AppServerTimeout:
            # RW-176: never stack a second thread/delete on a server still busy with the
            # first: end this server (unless a user's turn runs on it: then deletes stop
            # using it); the caller marks the item failed and retries later.
            if self.turns.busy():
                self._has_delete = False
            else:
                self.host.restart()
            raise
        except AppServerError as exc:
            if exc.is_missing_rollout:
                return ControlResult("done", VIA_THREAD_DELETE)
            if not exc.is_unknown_method:
                raise
            self._has_delete = False
            return ControlResult("unsupported")
        return ControlResult("done", VIA_THREAD_DELETE)

    # -- helpers ----------------------------------------------------------------------------
    def _move(
        self, method: str, handle: Handle, source_path: Path | None, *, archived: bool
    ) -> ControlResult:
        thread = handle.get("threadId")
        if not thread:
            return ControlResult("unsupported")
        done = self._call(method, thread)
        if not done.done:
            return done
        return ControlResult(
            "done", VIA_APP_SERVER, self._moved_rollout(source_path, archived, done.details)
        )

    def _call(self, method: str, thread_id: str, **extra: Any) -> ControlResult:
        server = self.server()
        if server is None:
            return ControlResult("unavailable")
        try:
            result = server.request(method, {"threadId": thread_id, **extra})
            return ControlResult("done", VIA_APP_SERVER, details=result)
        except AppServerError as exc:
            if not exc.is_missing_rollout:
                raise
        if method == "thread/archive":
            try:
                server.request("thread/delete", {"threadId": thread_id}, timeout=DELETE_TIMEOUT)
            except AppServerError as exc:
                if not (exc.is_missing_rollout or exc.is_unknown_method):
                    raise
        return ControlResult("missing")

    def _moved_rollout(
        self, source: Path | None, archived: bool, result: dict[str, Any]
    ) -> Path | None:
        thread = result.get("thread")
        if not archived and isinstance(thread, dict) and isinstance(thread.get("path"), str):
            return Path(thread["path"])
        if source is None:
            return None
        return locate_rollout(self.home.root, PurePath(source).name, archived)


def append_session_name(codex_home: Path, thread_id: str, name: str) -> None:
    """Append ``{"id", "thread_name", "updated_at"}`` to Codex's name index (one write)."""
    stamp = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
    line = json.dumps({"id": thread_id, "thread_name": name, "updated_at": stamp})
    codex_home.mkdir(parents=True, exist_ok=True)
    path = codex_home / "session_index.jsonl"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        prefix = b""
        size = os.fstat(fd).st_size
        if size:
            with path.open("rb") as handle:
                handle.seek(size - 1)
                if handle.read(1) != b"\n":
                    prefix = b"\n"  # never glue our line onto a partial one
        os.write(fd, prefix + line.encode() + b"\n")
    finally:
        os.close(fd)


def locate_rollout(codex_home: Path, file_name: str, archived: bool) -> Path | None:
    """Where Codex keeps rollout ``file_name`` now (after an archive or unarchive)."""
    if archived:
        candidate = codex_home / "archived_sessions" / file_name
        return candidate if candidate.is_file() else None
    sessions = codex_home / "sessions"
    if not sessions.is_dir():
        return None
    for found in sessions.glob(f"*/*/*/{file_name}"):
        if found.is_file():
            return found
    return None
