"""``runtime.terminal.*``: a PTY shell beside a task, on this device (RW-248..258).

* ``runtime.terminal.open {workspacePath, localTaskId?, terminalId?, cols?, rows?}`` →
  ``TerminalInfo`` (a shell in the task's own directory, or a known project root; with
  ``terminalId``, that terminal again when it is still open for the same context)
* ``runtime.terminal.input {terminalId, data}`` / ``resize {terminalId, cols, rows}`` →
  ``{terminalId}``
* ``runtime.terminal.replay {terminalId, offset}`` → ``{terminalId, offset, data, truncated}``
* ``runtime.terminal.close {terminalId}`` → ``{terminalId, closed}``;
  ``runtime.terminal.list {}`` → ``{terminals[TerminalInfo]}``

Output is streamed as ``runtime.terminal.output`` / ``runtime.terminal.exit`` events through
the executor's sink (:mod:`hangar.protocol.terminal`). Errors: ``workspace_mismatch`` (400),
``unknown_workspace``, ``workspace_missing``, ``terminal_not_found`` (404),
``terminal_context_mismatch``, ``terminal_limit``, ``terminal_input_refused`` (409),
``terminal_start_failed`` (500).
"""

from __future__ import annotations

from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import Handler
from hangar.executor.tool_context import resolve_tool_context
from hangar.protocol import methods as m
from hangar.protocol import terminal as term
from hangar.protocol.tasks import NoArguments


def open_terminal(executor: ExecutorCore, request: term.OpenTerminal) -> term.TerminalInfo:
    context = resolve_tool_context(executor, request.workspace_path, request.local_task_id)
    return executor.terminals.open(context, request)


def send_input(executor: ExecutorCore, request: term.TerminalInput) -> term.Accepted:
    return executor.terminals.input(request)


def resize(executor: ExecutorCore, request: term.TerminalResize) -> term.Accepted:
    return executor.terminals.resize(request)


def replay(executor: ExecutorCore, request: term.TerminalReplay) -> term.TerminalOutput:
    return executor.terminals.replay(request)


def flow(executor: ExecutorCore, request: term.TerminalFlow) -> term.Accepted:
    return executor.terminals.flow(request)


def close(executor: ExecutorCore, request: term.TerminalRef) -> term.TerminalClosed:
    return executor.terminals.close(request)


def list_terminals(executor: ExecutorCore, request: NoArguments) -> term.TerminalList:
    return executor.terminals.list()


HANDLERS: dict[str, Handler] = {
    m.TERMINAL_OPEN.name: open_terminal,
    m.TERMINAL_INPUT.name: send_input,
    m.TERMINAL_RESIZE.name: resize,
    m.TERMINAL_REPLAY.name: replay,
    m.TERMINAL_FLOW.name: flow,
    m.TERMINAL_CLOSE.name: close,
    m.TERMINAL_LIST.name: list_terminals,
}
