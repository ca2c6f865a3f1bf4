"""Concurrent callers share one computation that began after each asked (``FreshShared``).

Each computation returns the value of a ``state`` counter as it read it; a caller records the
state when it asks. A shared answer is right only if it is not older than the caller: the
answer's state is at least the caller's.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

import pytest

from hangar.hub.fresh_shared import FreshShared


class Source:
    """What the computations read: a counter the test bumps; the next read after
    :meth:`hold_next` stays open until ``release`` is set, while callers arrive."""

    def __init__(self) -> None:
        self.state = 0
        self.started = threading.Event()
        self.release = threading.Event()
        self.gate: threading.Event | None = None
        self.fail = False

    def hold_next(self) -> None:
        self.release.clear()
        self.started.clear()
        self.gate = self.release

    def read(self) -> int:
        seen = self.state
        gate, self.gate = self.gate, None
        self.started.set()
        if gate is not None:
            assert gate.wait(10)
        if self.fail:
            raise RuntimeError(f"read failed at state {seen}")
        return seen


def _held(overlap_after: float) -> tuple[Source, FreshShared[int], threading.Thread]:
    """A source, its ``FreshShared``, and a thread whose computation is held open."""
    source = Source()
    shared = FreshShared(source.read, overlap_after=overlap_after)
    return source, shared, _hold_first_computation(shared, source)


def _start_and_wait(shared: FreshShared[int], callers: list[threading.Thread]) -> None:
    """Start ``callers`` and return once each waits inside ``shared``."""
    for caller in callers:
        caller.start()
    deadline = time.monotonic() + 10
    while _waiting_threads(shared) < len(callers) and time.monotonic() < deadline:
        time.sleep(0.005)


def _hold_first_computation(shared: FreshShared[int], source: Source) -> threading.Thread:
    """Start a computation and keep it running until ``source.release`` is set."""
    source.hold_next()
    first = threading.Thread(target=lambda: _ignore_errors(shared))
    first.start()
    assert source.started.wait(10)
    return first


def _ignore_errors(shared: FreshShared[int]) -> None:
    with contextlib.suppress(RuntimeError):
        shared.get()


def test_threads_that_ask_during_a_computation_share_the_next_one_and_see_their_writes() -> None:
    source, shared, first = _held(overlap_after=30)
    source.state = 1  # written after the running computation read: callers below must see it
    answers: list[tuple[int, int]] = []

    def ask() -> None:
        asked_at = source.state
        answers.append((asked_at, shared.get()))

    callers = [threading.Thread(target=ask) for _ in range(20)]
    _start_and_wait(shared, callers)
    source.release.set()
    for caller in [first, *callers]:
        caller.join(10)
    assert len(answers) == 20
    assert all(answer >= asked_at for asked_at, answer in answers)
    assert {answer for _, answer in answers} == {1}
    assert shared.computations == 2  # the held one, then one for all twenty


def _waiting_threads(shared: FreshShared[int]) -> int:
    return len(shared._cond._waiters)  # type: ignore[attr-defined]


def test_a_caller_after_a_computation_ended_gets_a_new_one() -> None:
    source = Source()
    shared = FreshShared(source.read)
    assert shared.get() == 0
    source.state = 5
    assert shared.get() == 5
    assert shared.computations == 2


def test_a_slow_computation_does_not_hold_a_newcomer_past_overlap_after() -> None:
    source, shared, first = _held(overlap_after=0.05)
    source.state = 2
    asked = time.monotonic()
    assert shared.get() == 2
    assert time.monotonic() - asked < 5  # it did not wait for the held computation
    assert first.is_alive()
    source.release.set()
    first.join(10)
    assert shared.computations == 2


def test_everyone_who_joined_a_failed_computation_gets_its_error_and_the_next_caller_retries() -> (
    None
):
    source, shared, first = _held(overlap_after=30)
    source.fail = True
    errors: list[str] = []

    def ask() -> None:
        try:
            shared.get()
        except RuntimeError as exc:
            errors.append(str(exc))

    callers = [threading.Thread(target=ask) for _ in range(5)]
    _start_and_wait(shared, callers)
    source.release.set()
    first.join(10)
    for caller in callers:
        caller.join(10)
    assert len(errors) == 5 and len(set(errors)) == 1
    source.fail = False
    assert shared.get() == 0
    assert shared.computations == 3


def test_coroutines_share_one_computation_without_a_thread_each() -> None:
    source, shared, first = _held(overlap_after=30)
    source.state = 7

    async def burst() -> list[tuple[int, int]]:
        async def ask() -> tuple[int, int]:
            asked_at = source.state
            return asked_at, await shared.aget()

        tasks = [asyncio.ensure_future(ask()) for _ in range(20)]
        while len(shared._waiting) < 20:
            await asyncio.sleep(0.005)
        source.release.set()
        return await asyncio.gather(*tasks)

    answers = asyncio.run(asyncio.wait_for(burst(), 10))
    first.join(10)
    assert all(answer >= asked_at for asked_at, answer in answers)
    assert {answer for _, answer in answers} == {7}
    assert shared.computations == 2


def test_a_cancelled_coroutine_does_not_disturb_the_others() -> None:
    source, shared, first = _held(overlap_after=30)

    async def scenario() -> int:
        gone = asyncio.ensure_future(shared.aget())
        stays = asyncio.ensure_future(shared.aget())
        while len(shared._waiting) < 2:
            await asyncio.sleep(0.005)
        gone.cancel()
        with pytest.raises(asyncio.CancelledError):
            await gone
        source.release.set()
        return await stays

    assert asyncio.run(asyncio.wait_for(scenario(), 10)) == 0
    first.join(10)
