"""Token usage and cost of this device's sessions, counted honestly (``runtime.usage.summary``).

Every session in the LocalTask index that is not deleted (archived ones and sub-agent sessions
included) is read through its agent's ``usage`` facet, which yields one
:class:`~hangar.model.UsageEvent` per model call from the agent's own records. Rules:

* a call is counted once, by its key, however many files record it (a fork or a resumed session
  replays its parent's records; the older session, read first, keeps the call);
* a sub-agent session's calls belong to the task that started it;
* reasoning is a part of output, never added on top; cache reads and writes are their own
  columns (priced apart);
* cost comes from the local price table (:mod:`hangar.executor.prices`); a call whose model has
  no price adds to ``unpricedTokens``, never to a guessed cost.

What a file yields is kept by its stat signature, so asking again reads only changed files.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePath

from hangar.agents.base import AgentStore, SessionSource
from hangar.agents.registry import agent
from hangar.executor.database import ExecutorDatabase
from hangar.executor.prices import Price, PriceTable
from hangar.model import TokenUse, UsageEvent
from hangar.protocol.usage import GroupBy, UsageReport, UsageRequest, UsageRow

NO_PROJECT = "Conversations"


Bucket = tuple[str, str | None, str | None]
"""(local task id, UTC day, model): the finest grouping; every report sums buckets."""


@dataclass
class _Group:
    key: str
    label: str
    calls: int = 0
    tokens: TokenUse = field(default_factory=TokenUse)
    cost: float = 0.0
    priced: bool = False
    unpriced: int = 0
    models: set[str] = field(default_factory=set)
    local_task_id: str | None = None
    runtime: str | None = None
    project: str | None = None

    def add(self, model: str | None, calls: int, tokens: TokenUse, prices: _Prices) -> None:
        self.calls += calls
        self.tokens = self.tokens.plus(tokens)
        if model:
            self.models.add(model)
        price = prices(model)
        if price is None:
            self.unpriced += tokens.total
        else:
            self.cost += price.cost(tokens)
            self.priced = True

    def row(self) -> UsageRow:
        return UsageRow(
            key=self.key,
            label=self.label,
            calls=self.calls,
            tokens=self.tokens,
            total_tokens=self.tokens.total,
            cost_usd=round(self.cost, 6) if self.priced else None,
            unpriced_tokens=self.unpriced,
            local_task_id=self.local_task_id,
            runtime=self.runtime,
            project=self.project,
            models=sorted(self.models),
        )


def _day(stamp: str | None) -> str | None:
    if not stamp:
        return None
    if stamp.endswith("Z") and len(stamp) >= 10 and stamp[4] == "-" and stamp[7] == "-":
        return stamp[:10]  # already UTC: the date is its first ten characters
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).date().isoformat()


def _project(row: sqlite3.Row) -> str | None:
    if row["workspace_kind"] == "chat":
        return None
    return row["group_workspace_path"] or row["workspace_path"] or None


Sums = list[int]
"""``[calls, input, cache_read, cache_write, output, reasoning]``."""


def _add(sums: Sums, tokens: TokenUse, calls: int = 1) -> None:
    sums[0] += calls
    sums[1] += tokens.input
    sums[2] += tokens.cache_read
    sums[3] += tokens.cache_write
    sums[4] += tokens.output
    sums[5] += tokens.reasoning


@dataclass(frozen=True)
class _FileUsage:
    """What one session file yielded: its calls, their keys, and their sums by day and model
    (a report adds the sums at once when none of the keys was counted before)."""

    signature: str
    events: list[UsageEvent]
    keys: frozenset[str]
    days: dict[tuple[str | None, str | None], Sums]

    @classmethod
    def of(cls, signature: str, events: list[UsageEvent], fallback_day: str | None) -> _FileUsage:
        days: dict[tuple[str | None, str | None], Sums] = {}
        unique: dict[str, UsageEvent] = {}
        for event in events:
            unique.setdefault(event.key, event)
        for event in unique.values():
            bucket = (_day(event.at) or fallback_day, event.model)
            _add(days.setdefault(bucket, [0, 0, 0, 0, 0, 0]), event.tokens)
        return cls(signature, list(unique.values()), frozenset(unique), days)


class UsageCounter:
    """Reads and groups usage; keeps what each file yielded by its stat signature."""

    def __init__(self, db: ExecutorDatabase, stores: Mapping[str, AgentStore]) -> None:
        self.db = db
        self.stores = stores
        self._cache: dict[str, _FileUsage] = {}
        self._lock = threading.Lock()
        self.files_read = 0

    def file_usage(self, row: sqlite3.Row) -> _FileUsage | None:
        """The model calls of one indexed session (``None`` when its agent counts none)."""
        runtime = row["runtime"]
        record = agent(runtime)
        store = self.stores.get(runtime)
        scanner = record.usage_scanner() if record is not None else None
        if scanner is None or store is None or not row["source_path"]:
            return None
        path = Path(row["source_path"])
        try:
            info = path.stat()
        except OSError:
            return None
        cache_key = f"{runtime}:{row['session_key']}"
        signature = f"{info.st_dev}:{info.st_ino}:{info.st_size}:{info.st_mtime_ns}"
        with self._lock:
            cached = self._cache.get(cache_key)
        if cached is not None and cached.signature == signature:
            return cached
        source = SessionSource(
            runtime=runtime,
            session_id=row["session_key"],
            path=path,
            runtime_handle=json.loads(row["runtime_handle"] or "{}"),
        )
        try:
            found = list(scanner(store, source))
        except (OSError, ValueError):
            found = []
        self.files_read += 1
        usage = _FileUsage.of(signature, found, _day(row["updated_at"]))
        with self._lock:
            self._cache[cache_key] = usage
        return usage

    def _rows(self) -> Iterator[tuple[sqlite3.Row, str]]:
        """Every session to count with the task it belongs to, oldest first (so a parent is
        read before the forks and resumed copies that replay it)."""
        rows = (
            self.db.read()
            .execute(
                "SELECT * FROM local_tasks WHERE deleted_at IS NULL"
                " ORDER BY created_at, local_task_id"
            )
            .fetchall()
        )
        owner = {
            (r["runtime"], r["session_key"]): r["local_task_id"]
            for r in rows
            if r["parent_session_key"] is None
        }
        for row in rows:
            parent = row["parent_session_key"]
            task = owner.get((row["runtime"], parent)) if parent else row["local_task_id"]
            yield row, task or row["local_task_id"]

    def report(self, request: UsageRequest, prices: PriceTable) -> UsageReport:
        buckets: dict[Bucket, Sums] = {}
        seen: set[str] = set()
        rows = list(self._rows())
        tasks = {r["local_task_id"]: r for r, _ in rows}

        def wanted(day: str | None) -> bool:
            if request.since and (day is None or day < request.since):
                return False
            return not (request.until and (day is None or day > request.until))

        for row, task_id in rows:
            usage = self.file_usage(row)
            if usage is None:
                continue
            if seen.isdisjoint(usage.keys):  # the usual case: add the file's sums at once
                seen |= usage.keys
                for (day, model), sums in usage.days.items():
                    if wanted(day):
                        into = buckets.setdefault((task_id, day, model), [0, 0, 0, 0, 0, 0])
                        for i, value in enumerate(sums):
                            into[i] += value
                continue
            fallback_day = _day(row["updated_at"])
            for event in usage.events:  # some calls were counted in an older session
                if event.key in seen:
                    continue
                seen.add(event.key)
                day = _day(event.at) or fallback_day
                if wanted(day):
                    bucket = (task_id, day, event.model)
                    _add(buckets.setdefault(bucket, [0, 0, 0, 0, 0, 0]), event.tokens)
        lookup = _Prices(prices)
        groups: dict[str, _Group] = {}
        total = _Group("total", "Total")
        for (task_id, day, model), sums in buckets.items():
            tokens = TokenUse(sums[1], sums[2], sums[3], sums[4], sums[5])
            group = self._group(groups, request.by, tasks[task_id], day, model)
            group.add(model, sums[0], tokens, lookup)
            total.add(model, sums[0], tokens, lookup)
        ordered = sorted(groups.values(), key=lambda g: (-g.tokens.total, g.key))
        if request.by == "day":
            ordered = sorted(groups.values(), key=lambda g: g.key, reverse=True)
        return UsageReport(
            by=request.by,
            rows=[g.row() for g in ordered],
            total=total.row(),
            sessions=len(rows),
            prices_file=str(prices.override) if prices.override else None,
        )

    @staticmethod
    def _group(
        groups: dict[str, _Group],
        by: GroupBy,
        task: sqlite3.Row,
        day: str | None,
        model: str | None,
    ) -> _Group:
        project = _project(task)
        if by == "task":
            key = task["local_task_id"]
        elif by == "project":
            key = project or ""
        elif by == "day":
            key = day or "unknown"
        else:
            key = model or "unknown"
        group = groups.get(key)
        if group is not None:
            return group
        if by == "task":
            label = task["title_override"] or task["title"] or "(untitled)"
        elif by == "project":
            label = PurePath(project).name or project if project else NO_PROJECT
        else:
            label = key
        group = groups[key] = _Group(key, label)
        if by == "task":
            group.local_task_id = task["local_task_id"]
            group.runtime = task["runtime"]
            group.project = project
        elif by == "project":
            group.project = project
        return group


class _Prices:
    """The table's price of each model, looked up once per model."""

    def __init__(self, table: PriceTable) -> None:
        self.table = table
        self._known: dict[str | None, Price | None] = {}

    def __call__(self, model: str | None) -> Price | None:
        if model not in self._known:
            self._known[model] = self.table.price(model)
        return self._known[model]
