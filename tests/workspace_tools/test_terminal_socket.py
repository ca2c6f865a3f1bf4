"""The terminal socket of a served hub: a real PTY shell on this device, over a real WebSocket."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Origin, Subprotocol

from hangar.composition import LocalHangar

from .conftest import (
    TOKEN,
    Browser,
    Project,
    control,
    log_in,
    open_frame,
    opened,
    read_until,
    serving,
)


def test_a_task_terminal_opens_in_the_worktree_it_ran_in(
    browser: Browser, project: Project
) -> None:
    """RW-249, RW-253: the worktree task's terminal starts in the worktree (the task's own
    ``workspacePath``), not in the project it is grouped under, and runs what is typed."""
    task = browser.tasks()[str(project.worktree)]
    assert task["groupWorkspacePath"] == str(project.root)
    with browser.connect() as ws:
        assert ws.subprotocol == "hangar.terminal.v1"
        ws.send(open_frame(deviceId=task["deviceId"], localTaskId=task["localTaskId"],
                           workspacePath=task["workspacePath"]))  # fmt: skip
        info = opened(ws)
        assert info["cwd"] == str(project.worktree)
        assert info["projectPath"] == str(project.root)
        ws.send(json.dumps({"type": "input", "data": "pwd; cat feature.txt; echo done-$((6*7))\r"}))
        output = read_until(ws, b"done-42")
    assert str(project.worktree).encode() in output
    assert b"only in the worktree" in output


def test_closing_the_socket_keeps_the_shell_and_reattaching_restores_it(
    browser: Browser, project: Project
) -> None:
    """RW-256: a page that comes back to task A's terminal gets A's shell again, with what it
    printed while nobody watched; the shell's own state (a variable) is still there."""
    task = browser.tasks()[str(project.root)]
    address = {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"],
               "workspacePath": task["workspacePath"]}  # fmt: skip
    with browser.connect() as ws:
        ws.send(open_frame(**address))
        first = opened(ws)
        ws.send(json.dumps({"type": "input", "data": "KEPT=kept-value; echo set-$KEPT\r"}))
        read_until(ws, b"set-kept-value")
        ws.send(json.dumps({"type": "input", "data": "sleep 0.5; echo while-$((40+2))-away\r"}))
    with browser.connect() as ws:
        ws.send(open_frame(**address, terminalId=first["terminalId"]))
        again = opened(ws)
        assert again["terminalId"] == first["terminalId"]
        assert again["reattached"] is True
        replayed = read_until(ws, b"while-42-away")
        assert b"set-kept-value" in replayed  # the earlier output comes back too
        ws.send(json.dumps({"type": "input", "data": "echo still-$KEPT\r"}))
        read_until(ws, b"still-kept-value")


def test_a_terminal_of_task_a_never_serves_task_b(browser: Browser, project: Project) -> None:
    """RW-255: task A's terminal id presented from task B's context is refused; B gets a
    shell of its own in its own directory."""
    tasks = browser.tasks()
    a, b = tasks[str(project.root)], tasks[str(project.worktree)]
    with browser.connect() as ws:
        ws.send(open_frame(deviceId=a["deviceId"], localTaskId=a["localTaskId"],
                           workspacePath=a["workspacePath"]))  # fmt: skip
        a_terminal = opened(ws)["terminalId"]
    with browser.connect() as ws:
        ws.send(open_frame(deviceId=b["deviceId"], localTaskId=b["localTaskId"],
                           workspacePath=b["workspacePath"], terminalId=a_terminal))  # fmt: skip
        error = control(ws)
        assert error["type"] == "error"
        assert error["code"] == "terminal_context_mismatch"
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4409
    with browser.connect() as ws:
        ws.send(open_frame(deviceId=b["deviceId"], localTaskId=b["localTaskId"],
                           workspacePath=b["workspacePath"]))  # fmt: skip
        info = opened(ws)
        assert info["terminalId"] != a_terminal
        assert info["cwd"] == str(project.worktree)


def test_a_conversation_and_a_project_without_a_task_get_their_own_directory(
    browser: Browser, project: Project
) -> None:
    """RW-251: a task with no project (a conversation) still gets a terminal in its folder;
    RW-257: with no task, a project's own root."""
    chat = browser.tasks()[str(project.chat)]
    assert chat["workspaceKind"] == "chat"
    with browser.connect() as ws:
        ws.send(open_frame(deviceId=chat["deviceId"], localTaskId=chat["localTaskId"],
                           workspacePath=chat["workspacePath"]))  # fmt: skip
        info = opened(ws)
        assert (info["cwd"], info["projectPath"]) == (str(project.chat), None)
    with browser.connect() as ws:
        ws.send(open_frame(deviceId=chat["deviceId"], workspacePath=str(project.root)))
        info = opened(ws)
        assert (info["cwd"], info["localTaskId"]) == (str(project.root), None)
        ws.send(json.dumps({"type": "input", "data": "pwd\r"}))
        read_until(ws, str(project.root).encode() + b"\r\n")


def test_a_gone_or_foreign_directory_is_an_error_never_home(
    browser: Browser, project: Project, isolated_home: Path
) -> None:
    """RW-258: a task whose directory is gone, a directory that is not the task's, and one
    that is no project of the device are refused; no shell starts in ``$HOME`` instead."""
    tasks = browser.tasks()
    main = tasks[str(project.root)]
    cases = [
        ({"localTaskId": main["localTaskId"], "workspacePath": str(project.worktree)},
         "workspace_mismatch", 4400),
        ({"workspacePath": str(isolated_home)}, "unknown_workspace", 4404),
    ]  # fmt: skip
    for fields, code, close_code in cases:
        with browser.connect() as ws:
            ws.send(open_frame(deviceId=main["deviceId"], **fields))
            error = control(ws)
            assert (error["type"], error["code"]) == ("error", code)
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == close_code
    worktree = tasks[str(project.worktree)]
    for path in sorted(project.worktree.rglob("*"), reverse=True):
        path.unlink() if not path.is_dir() or path.is_symlink() else path.rmdir()
    project.worktree.rmdir()
    with browser.connect() as ws:
        ws.send(open_frame(deviceId=worktree["deviceId"], localTaskId=worktree["localTaskId"],
                           workspacePath=worktree["workspacePath"]))  # fmt: skip
        error = control(ws)
        assert (error["type"], error["code"]) == ("error", "workspace_missing")
    with browser.connect() as ws:
        ws.send(open_frame(deviceId="another-device", workspacePath=str(project.root)))
        error = control(ws)
        assert (error["type"], error["code"]) == ("error", "device_unavailable")


def _refused(browser: Browser, **overrides: object) -> int:
    with pytest.raises(InvalidStatus) as refused:
        browser.connect(**overrides).close()
    return refused.value.response.status_code


def test_the_socket_needs_this_origin_the_session_and_its_csrf_token(browser: Browser) -> None:
    """A foreign Origin, no Origin, no session cookie (the bearer token is not enough), and a
    missing or wrong CSRF token are each refused at the handshake, before any upgrade."""
    assert _refused(browser, origin=Origin("http://evil.example")) == 403
    assert _refused(browser, origin=Origin(browser.url.replace("127.0.0.1", "localhost"))) == 403
    assert _refused(browser, origin=None) == 403
    assert _refused(browser, additional_headers={"Authorization": f"Bearer {TOKEN}"}) == 403
    assert _refused(browser, subprotocols=[Subprotocol("hangar.terminal.v1")]) == 403
    wrong = [Subprotocol("hangar.terminal.v1"), Subprotocol("csrf." + "0" * 64)]
    assert _refused(browser, subprotocols=wrong) == 403
    with browser.connect() as ws:  # and the same browser, as the page opens it, is let in
        assert ws.subprotocol == "hangar.terminal.v1"


@pytest.fixture
def remote_hub(state: LocalHangar, project: Project) -> Iterator[Browser]:
    """The app as ``hangar serve --host 0.0.0.0 --allow-remote`` builds it (served on
    loopback here: only the bind it was built for differs)."""
    app: FastAPI = state.create_app(TOKEN, bind_host="0.0.0.0")
    with serving(app) as url:
        yield from log_in(url)


def test_a_hub_bound_remotely_refuses_terminals_and_says_why(remote_hub: Browser) -> None:
    """Without the ``remote_terminal`` setting a remote bind opens no terminal, even for
    the logged-in owner; the page says terminals are off and why."""
    assert _refused(remote_hub) == 403
    page = remote_hub.client.get("/runtime-tasks").text
    assert 'data-terminal="off"' in page
    assert "remote_terminal" in page


def test_the_remote_terminal_setting_enables_them(
    project: Project, monkeypatch: pytest.MonkeyPatch, hangar_home: Path
) -> None:
    monkeypatch.setenv("HANGAR_REMOTE_TERMINAL", "1")
    with LocalHangar.open() as state, serving(state.create_app(TOKEN, bind_host="0.0.0.0")) as url:
        for browser in log_in(url):
            task = browser.tasks()[str(project.root)]
            with browser.connect() as ws:
                ws.send(open_frame(deviceId=task["deviceId"], localTaskId=task["localTaskId"],
                                   workspacePath=task["workspacePath"]))  # fmt: skip
                assert opened(ws)["cwd"] == str(project.root)


def test_malformed_frames_get_a_clear_error(browser: Browser, project: Project) -> None:
    task = browser.tasks()[str(project.root)]
    with browser.connect() as ws:
        ws.send('{"type": "open", "deviceId": 5}')
        error = control(ws)
        assert (error["type"], error["code"]) == ("error", "invalid_request")
    with browser.connect() as ws:
        ws.send(open_frame(deviceId=task["deviceId"], localTaskId=task["localTaskId"],
                           workspacePath=task["workspacePath"]))  # fmt: skip
        opened(ws)
        ws.send('{"type": "resize", "cols": "wide", "rows": 10}')
        error = control(ws)
        assert (error["type"], error["code"]) == ("error", "invalid_request")
