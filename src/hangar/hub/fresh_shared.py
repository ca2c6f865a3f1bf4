"""Concurrent callers share one computation that began after each of them asked.

Twenty pages asking for the task list at once used to run twenty identical reads (the device
list and bindings from the hub database, one ``runtime.tasks.list`` per device), one after
the other on two cores. :class:`FreshShared` lets them share: a caller takes the answer of a
computation that *started after the caller arrived*, so what it gets is never older than its
own request, exactly as if it had computed alone; a burst of callers costs about two
computations instead of one each.

A caller that arrives while a computation runs waits for it to end and joins the next one (one
for all who waited). A computation that runs longer than ``overlap_after`` seconds (a slow
device, a fan-out timing out) does not hold newcomers back: they start their own, so no caller
waits longer than one computation plus ``overlap_after``. A computation's error is the answer
of everyone who joined it.

Callers on threads use :meth:`FreshShared.get`; coroutines use :meth:`FreshShared.aget`,
which runs a computation it starts on a worker thread and otherwise waits on the event loop
without a thread of its own (an async route serving a shared answer costs no thread hop).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import anyio.to_thread

T = TypeVar("T")
Answer = tuple[T | None, BaseException | None]


@dataclass(frozen=True)
class _Done(Generic[T]):
    answer: Answer[T]


@dataclass(frozen=True)
class _Start:
    number: int
    """The start number of the computation the caller runs now."""


@dataclass(frozen=True)
class _Wait:
    seconds: float | None
    """How long to wait before asking again (``None``: until a computation ends)."""


class FreshShared(Generic[T]):
    def __init__(self, compute: Callable[[], T], overlap_after: float = 0.25) -> None:
        self._compute = compute
        self.overlap_after = overlap_after
        self.computations = 0
        """Computations started so far (for tests and the benchmark)."""
        self._cond = threading.Condition()
        self._running: dict[int, float] = {}
        """Running computations: start number → ``time.monotonic()`` at their start."""
        self._done = 0
        """The start number of the newest computation that ended (0: none yet)."""
        self._answer: Answer[T] = (None, None)
        self._waiting: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        """Coroutines waiting for the next end of a computation."""

    def get(self) -> T:
        with self._cond:
            need = self.computations + 1  # any computation that starts from now on will do
            while True:
                step = self._next(need)
                if isinstance(step, _Done):
                    return _unpack(step.answer)
                if isinstance(step, _Start):
                    break
                self._cond.wait(step.seconds)
        return _unpack(self._run(step.number))

    async def aget(self) -> T:
        loop = asyncio.get_running_loop()
        with self._cond:
            need = self.computations + 1
        while True:
            with self._cond:
                step = self._next(need)
                if isinstance(step, _Wait):
                    woken: asyncio.Future[None] = loop.create_future()
                    self._waiting.append((loop, woken))
            if isinstance(step, _Done):
                return _unpack(step.answer)
            if isinstance(step, _Start):
                return _unpack(await anyio.to_thread.run_sync(self._run, step.number))
            # On a timeout the running computation is old enough to start another beside it.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(woken, step.seconds)

    def _next(self, need: int) -> _Done[T] | _Start | _Wait:
        """Under the lock, for a caller that needs a computation numbered ``need`` or
        later: its answer, the computation it starts now, or how long to wait."""
        if self._done >= need:
            return _Done(self._answer)
        if any(number >= need for number in self._running):
            return _Wait(None)
        newest = max(self._running.values(), default=None)
        waited = 0.0 if newest is None else time.monotonic() - newest
        if newest is not None and waited < self.overlap_after:
            return _Wait(self.overlap_after - waited)
        self.computations += 1
        self._running[self.computations] = time.monotonic()
        return _Start(self.computations)

    def _run(self, number: int) -> Answer[T]:
        value: T | None = None
        error: BaseException | None = None
        try:
            value = self._compute()
        except BaseException as exc:
            error = exc
        with self._cond:
            del self._running[number]
            if number > self._done:
                self._done, self._answer = number, (value, error)
            self._cond.notify_all()
            waiting, self._waiting = self._waiting, []
        by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
        for loop, woken in waiting:
            by_loop.setdefault(loop, []).append(woken)
        for loop, futures in by_loop.items():  # one wake-up per loop, not one per waiter
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody is left to wake
                loop.call_soon_threadsafe(_wake, futures)
        return value, error


def _wake(futures: list[asyncio.Future[None]]) -> None:
    for woken in futures:
        if not woken.done():
            woken.set_result(None)


def _unpack(answer: Answer[T]) -> T:
    value, error = answer
    if error is not None:
        raise error
    return value  # type: ignore[return-value]
