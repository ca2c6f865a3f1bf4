"""Run messages and usage entries: the local-run execution log (DESIGN §4), typed once.

A run message is ``{type, source, sourceKey, content?, tool?, input?, output?}`` on the wire;
the hub adds ``seq``, ``createdAt`` and (when a field was cut) ``truncated``. ``sourceKey`` is
derived from the agent's real event ids (never time, random numbers or counters), so the same
event always yields the same key and the hub stores it once per (run, source, sourceKey).

Contracts:

- :func:`decode_run_message` is the hub's one decoder of a posted message: strict types (no
  coercion), the id and size limits below, ``input`` an object at most
  :data:`MAX_INPUT_DEPTH` deep; anything else raises :class:`InvalidRunMessage` naming the
  field, in a message that never repeats more than a few dozen characters of the input.
- :meth:`RunMessage.prepared` is what both ends store or send: every secret redacted
  (:mod:`hangar.redaction`) and every field bounded — ``content`` and ``output`` longer than
  :data:`MAX_TEXT_CHARS` keep their head and tail around an omission note, an ``input`` whose
  JSON is longer than :data:`MAX_INPUT_BYTES` (or deeper than the limit) keeps its top-level
  scalars and the head and tail of its JSON text (``truncatedJson``), and ``truncated`` says
  so. It is idempotent, and reads at most about twice the kept size of any field.
- :class:`UsageEntry` counts are integers in ``0 … 2**63-1`` (:data:`MAX_COUNT`).
- ``input.checklist`` (``{source, items[{content, status, priority?}]}``), where present, is a
  checklist update the provider's :class:`~hangar.agents.checklist_rules.ChecklistLedger`
  committed for the message's turn (``input.turnKey``): the hub mirrors it to the run's issue
  (:func:`checklist_of`). A posted one that is not a valid checklist is refused (422 naming
  ``input.checklist``); bounding never drops it while it fits :data:`MAX_INPUT_BYTES` alone.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

import msgspec

from hangar.errors import shown
from hangar.model.checklist import Checklist

MessageType = Literal["text", "thinking", "tool_use", "tool_result", "error", "user_input", "final"]
MESSAGE_TYPES: frozenset[str] = frozenset(get_args(MessageType))

#: Sources the built-in providers use.
SOURCE_CODEX = "codex-app-server"
SOURCE_CLAUDE = "claude-jsonl"

MAX_SOURCE_CHARS = 100
MAX_SOURCE_KEY_CHARS = 500
MAX_TOOL_CHARS = 200
MAX_TEXT_CHARS = 64 * 1024
"""``content`` and ``output`` beyond this keep their first and last half of it."""
MAX_INPUT_BYTES = 64 * 1024
"""An ``input`` whose JSON is longer is kept as the head and tail of that JSON text."""
MAX_INPUT_DEPTH = 32
"""Objects and arrays nested deeper than this in ``input`` are refused."""
MAX_COUNT = 2**63 - 1
"""The largest token count (and ``activeMs``) the hub stores: a signed 64-bit integer."""
_KEPT_SCALARS = 32


class InvalidRunMessage(ValueError):
    """A posted run message (or usage report) the hub refuses; ``field`` names the culprit."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}" if field else problem)
        self.field = field
        self.problem = problem


class RunMessage(msgspec.Struct, frozen=True, rename="camel", omit_defaults=True):
    """One execution-log entry as a provider reports it."""

    type: MessageType
    source: str
    source_key: str
    content: str = ""
    tool: str | None = None
    input: dict[str, Any] = msgspec.field(default_factory=dict)
    output: str | None = None
    truncated: bool = False

    def is_empty(self) -> bool:
        """Empty messages are dropped, except tool messages (a tool may print nothing)."""
        if self.type in ("tool_use", "tool_result"):
            return False
        return not self.content.strip() and not self.input

    def prepared(self) -> RunMessage:
        """Redacted and bounded (see the module docstring); ``self`` when nothing changes."""
        content, cut_content = bounded_text(self.content)
        output, cut_output = (None, False) if self.output is None else bounded_text(self.output)
        data, cut_input = _bounded_input(self.input)
        truncated = self.truncated or cut_content or cut_output or cut_input
        if (content, output, data, truncated) == (
            self.content,
            self.output,
            self.input,
            self.truncated,
        ):
            return self
        return msgspec.structs.replace(
            self, content=content, output=output, input=data, truncated=truncated
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = msgspec.to_builtins(self)
        out.setdefault("content", "")
        return out


SourceKey = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_SOURCE_KEY_CHARS)]
Source = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_SOURCE_CHARS)]
Tool = Annotated[str, msgspec.Meta(max_length=MAX_TOOL_CHARS)]
Count = Annotated[int, msgspec.Meta(ge=0, le=MAX_COUNT)]


class PostedMessage(msgspec.Struct, rename="camel"):
    """The wire shape of ``POST /api/local-runs/{runId}/messages`` (unknown fields ignored,
    so an older hub takes what a newer reporter sends)."""

    type: str
    source_key: SourceKey
    source: Source = "local-run"
    content: str = ""
    tool: Tool | None = None
    input: msgspec.Raw = msgspec.field(default_factory=msgspec.Raw)
    output: str | None = None


_POSTED = msgspec.json.Decoder(PostedMessage)


def decode_run_message(body: bytes) -> RunMessage:
    """The posted message in ``body``, validated (raises :class:`InvalidRunMessage`), not yet
    :meth:`~RunMessage.prepared`."""
    try:
        posted = _POSTED.decode(body)
    except msgspec.ValidationError as exc:
        raise _invalid(exc) from None
    except RecursionError:  # only ``input`` may nest
        raise InvalidRunMessage("input", f"nested deeper than {MAX_INPUT_DEPTH}") from None
    except msgspec.DecodeError as exc:
        raise InvalidRunMessage("", f"invalid JSON: {shown(str(exc))}") from None
    if posted.type not in MESSAGE_TYPES:
        raise InvalidRunMessage(
            "type", f"must be one of {', '.join(sorted(MESSAGE_TYPES))}, not {shown(posted.type)}"
        )
    raw = bytes(posted.input)
    data: dict[str, Any] = {}
    truncated = False
    if raw not in (b"", b"null"):
        if len(raw) > MAX_INPUT_BYTES:
            data, truncated = _input_preview(raw), True
        else:
            try:
                value = msgspec.json.decode(raw)
            except RecursionError:
                raise InvalidRunMessage("input", f"nested deeper than {MAX_INPUT_DEPTH}") from None
            if not isinstance(value, dict):
                raise InvalidRunMessage("input", "must be an object")
            if depth(value) > MAX_INPUT_DEPTH:
                raise InvalidRunMessage("input", f"nested deeper than {MAX_INPUT_DEPTH}")
            data = value
    if "checklist" in data and checklist_of(data) is None:
        raise InvalidRunMessage(
            "input.checklist", "must be {source, items: [{content, status, priority?}]}"
        )
    return RunMessage(
        type=posted.type,  # type: ignore[arg-type]  # checked against MESSAGE_TYPES above
        source=posted.source,
        source_key=posted.source_key,
        content=posted.content,
        tool=posted.tool,
        input=data,
        output=posted.output,
        truncated=truncated,
    )


def checklist_of(data: dict[str, Any]) -> Checklist | None:
    """The committed checklist update ``input.checklist`` carries, or ``None`` (absent, or not
    a valid checklist: the previous list stays, CL-025)."""
    value = data.get("checklist")
    if not isinstance(value, dict):
        return None
    try:
        return msgspec.convert(value, Checklist, strict=True)
    except msgspec.ValidationError:
        return None


class UsageEntry(msgspec.Struct, frozen=True, rename="camel"):
    """Token usage of one provider+model within a run (cumulative when sent)."""

    provider: Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
    model: Annotated[str, msgspec.Meta(max_length=200)] = ""
    input_tokens: Count = 0
    output_tokens: Count = 0
    cache_read_tokens: Count = 0
    cache_write_tokens: Count = 0

    def plus(self, other: UsageEntry) -> UsageEntry:
        """The sum of two increments (each count saturates at :data:`MAX_COUNT`)."""
        return UsageEntry(
            self.provider,
            self.model,
            min(MAX_COUNT, self.input_tokens + other.input_tokens),
            min(MAX_COUNT, self.output_tokens + other.output_tokens),
            min(MAX_COUNT, self.cache_read_tokens + other.cache_read_tokens),
            min(MAX_COUNT, self.cache_write_tokens + other.cache_write_tokens),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = msgspec.to_builtins(self)
        return out


class UsageReport(msgspec.Struct):
    """The body of ``PUT /api/local-runs/{runId}/usage``."""

    usage: Annotated[list[UsageEntry], msgspec.Meta(max_length=100)]


_USAGE = msgspec.json.Decoder(UsageReport)


def decode_usage(body: bytes) -> list[UsageEntry]:
    """The usage entries in ``body`` (raises :class:`InvalidRunMessage`)."""
    try:
        return _USAGE.decode(body).usage
    except msgspec.ValidationError as exc:
        raise _invalid(exc) from None
    except (msgspec.DecodeError, RecursionError) as exc:
        raise InvalidRunMessage("", f"invalid JSON: {shown(str(exc))}") from None


# -- bounds --------------------------------------------------------------------------------


def bounded_text(text: str, limit: int = MAX_TEXT_CHARS) -> tuple[str, bool]:
    """``text`` redacted, and cut to its head and tail when longer than ``limit``; returns
    (text, cut). Text that was cut before is never cut again."""
    from hangar.redaction import redact_text, redact_window  # its rules: compiled when used

    half = limit // 2
    window = redact_window(text, half, half)
    if window is None:
        redacted = redact_text(text)
        if len(redacted) <= limit + len(_omitted(10**12)):
            return redacted, False
        window = (redacted[:half], redacted[-half:])
    head, tail = window
    return f"{head}{_omitted(len(text) - len(head) - len(tail))}{tail}", True


def _omitted(count: int) -> str:
    return f"\n… [{count} characters omitted] …\n"


def depth(value: Any) -> int:
    """How deeply objects and arrays nest in ``value`` (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        level += 1
        deepest = max(deepest, level)
        if deepest > MAX_INPUT_DEPTH:
            return deepest
        stack.extend((child, level) for child in children)
    return deepest


def _bounded_input(data: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """``data`` redacted; a preview of it when its JSON is too long or too deep."""
    from hangar.redaction import redact_value

    if not data:
        return data, False
    try:
        raw = msgspec.json.encode(data)
    except (RecursionError, TypeError, msgspec.EncodeError):
        return {"truncatedJson": "(not representable as JSON)"}, True
    if len(raw) > MAX_INPUT_BYTES or depth(data) > MAX_INPUT_DEPTH:
        return _input_preview(raw), True
    redacted: dict[str, Any] = redact_value(data)
    return redacted, False


def _input_preview(raw: bytes) -> dict[str, Any]:
    """An ``input`` too large to keep: its top-level scalars (``turnKey``, ``kind``… which
    the outbox reads) and the head and tail of its JSON text, redacted."""
    from hangar.redaction import redact_value

    preview: dict[str, Any] = {}
    try:
        value = msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        value = None
    if isinstance(value, dict):
        for key, item in list(value.items())[:_KEPT_SCALARS]:
            if isinstance(item, (bool, int, float)) or (
                isinstance(item, str) and len(item) <= MAX_TOOL_CHARS
            ):
                preview[key] = item
        # A committed checklist is what the issue mirrors: keep it whole while it fits.
        checklist = value.get("checklist")
        if isinstance(checklist, dict) and len(msgspec.json.encode(checklist)) <= (
            MAX_INPUT_BYTES * 3 // 4
        ):
            preview["checklist"] = checklist
    preview = redact_value(preview)
    text = raw.decode("utf-8", "replace")
    preview["truncatedJson"] = bounded_text(text, MAX_INPUT_BYTES // 4)[0]
    return preview


def _invalid(exc: msgspec.ValidationError) -> InvalidRunMessage:
    message = str(exc)
    problem, _, where = message.rpartition(" - at `")
    if not problem:
        return InvalidRunMessage("", shown(message, 200))
    field = where.rstrip("`").removeprefix("$").lstrip(".")
    return InvalidRunMessage(shown(field), shown(problem, 200))
