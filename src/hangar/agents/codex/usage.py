"""Codex's usage facet: one event per model call, from the rollout's own records.

Codex 0.171 writes a ``token_usage_record`` per model response (``thread_id``, ``turn_id``,
``response_id``, ``usage``). Older rollouts only have ``event_msg/token_count`` events whose
``last_token_usage`` is the latest call and ``total_token_usage`` the thread's running total;
a count is taken only when that total moved (Codex repeats the event for rate-limit updates).

Never summed: ``total_token_usage``. A forked thread's running total starts from its parent's
(observed on 0.171: the fork's first total is the parent's total plus the new call), so summing
totals counts the parent again in every fork. Older forks and sub-agent rollouts copy their
parent's records into the new file: lines older than the file's own ``session_meta`` are that
copy and are skipped; what is left is keyed by the call itself, so a copy that
slips through is still counted once.

OpenAI's counts include cached input in ``input_tokens`` and reasoning in ``output_tokens``;
:class:`~hangar.model.TokenUse` splits the first and keeps the second as a part.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import msgspec

from hangar.agents.base import AgentStore, SessionSource
from hangar.agents.usage_scan import lines_with, read_regular
from hangar.model import TokenUse, UsageEvent


class _Counts(msgspec.Struct):
    input_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_input_tokens: int = 0
    output_tokens: int = 0
    reasoning_output_tokens: int = 0
    total_tokens: int = 0

    def tokens(self) -> TokenUse:
        cached = min(self.cached_input_tokens, self.input_tokens)
        return TokenUse(
            input=self.input_tokens - cached,
            cache_read=cached,
            cache_write=self.cache_write_input_tokens,
            output=self.output_tokens,
            reasoning=min(self.reasoning_output_tokens, self.output_tokens),
        )


class _Info(msgspec.Struct):
    total_token_usage: _Counts | None = None
    last_token_usage: _Counts | None = None


class _Payload(msgspec.Struct):
    type: str | None = None
    timestamp: str | None = None
    model: str | None = None
    thread_id: str | None = None
    turn_id: str | None = None
    response_id: str | None = None
    usage: _Counts | None = None
    info: _Info | None = None


class _Line(msgspec.Struct):
    type: str = ""
    timestamp: str | None = None
    payload: _Payload | None = None


_DECODE = msgspec.json.Decoder(_Line).decode


def _lines(data: bytes, count_marker: bytes) -> Iterator[_Line]:
    for raw in lines_with(data, b'"session_meta"', b'"turn_context"', count_marker):
        try:
            yield _DECODE(raw)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue  # a line of another shape that mentions the word: not a count


def _moment(stamp: str | None) -> datetime | None:
    if not stamp:
        return None
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def scan_usage(store: AgentStore, source: SessionSource) -> Iterator[UsageEvent]:
    data = read_regular(source.path)
    if data is None:
        return
    own_start: datetime | None = None
    model: str | None = None
    has_records = b'"token_usage_record"' in data
    marker = b'"token_usage_record"' if has_records else b'"token_count"'
    last_total = -1
    for line in _lines(data, marker):
        payload = line.payload
        if payload is None:
            continue
        if line.type == "session_meta":
            if own_start is None:
                own_start = _moment(payload.timestamp or line.timestamp)
            continue
        moment = _moment(line.timestamp)
        if own_start is not None and moment is not None and moment < own_start:
            continue  # the parent's history, copied into a fork or a sub-agent's rollout
        if line.type == "turn_context":
            model = payload.model or model
        elif line.type == "token_usage_record" and payload.usage is not None:
            key = f"codex:{payload.thread_id}:{payload.turn_id}:{payload.response_id}"
            yield UsageEvent(key, line.timestamp, model, payload.usage.tokens())
        elif not has_records and payload.type == "token_count" and payload.info is not None:
            info = payload.info
            total = info.total_token_usage.total_tokens if info.total_token_usage else -1
            if info.last_token_usage is None or total == last_total:
                continue
            last_total = total
            key = f"codex-count:{line.timestamp}:{total}"
            yield UsageEvent(key, line.timestamp, model, info.last_token_usage.tokens())
