"""``runtime.usage.summary {by?, since?, until?}`` → :class:`~hangar.protocol.usage.UsageReport`
(see :mod:`hangar.executor.usage` for the counting rules)."""

from __future__ import annotations

from hangar.executor.core import ExecutorCore
from hangar.executor.prices import load_prices
from hangar.executor.rpc import Handler
from hangar.protocol import methods as m
from hangar.protocol.usage import UsageReport, UsageRequest


def usage_summary(executor: ExecutorCore, request: UsageRequest) -> UsageReport:
    executor.refresh_index()
    return executor.usage.report(request, load_prices(executor.settings.paths.home))


HANDLERS: dict[str, Handler] = {m.USAGE_SUMMARY.name: usage_summary}
