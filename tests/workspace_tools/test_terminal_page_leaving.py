"""A page that types and leaves at once: the terminal socket still carries out what it sent.

The output side may see the page leave first (a send to it fails) while the page's last
frames still wait to be read; the socket then reads on until it meets the close."""

from __future__ import annotations

import asyncio

import pytest
from starlette.websockets import WebSocketDisconnect

from hangar.hub.pages import terminal as page


async def _output_to_a_page_that_left() -> None:
    raise WebSocketDisconnect(1006)


async def _flow_control() -> None:
    await asyncio.Event().wait()


def test_input_sent_right_before_leaving_is_carried_out() -> None:
    carried: list[str] = []

    async def client_frames() -> None:
        await asyncio.sleep(0.05)  # its last frame is read after the output side saw it leave
        carried.append("input")
        raise WebSocketDisconnect(1000)  # then the close

    asyncio.run(page._run_both(client_frames(), _output_to_a_page_that_left(), _flow_control()))
    assert carried == ["input"]


def test_a_page_gone_without_a_close_is_not_waited_for_long(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(page, "DRAIN_SECONDS", 0.05)
    cancelled: list[bool] = []

    async def client_frames() -> None:
        try:
            await asyncio.Event().wait()  # no close ever comes
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    run = page._run_both(client_frames(), _output_to_a_page_that_left(), _flow_control())
    asyncio.run(asyncio.wait_for(run, 5))
    assert cancelled == [True]
