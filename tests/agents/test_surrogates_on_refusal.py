"""Projectors that repair lone surrogate escapes only when their decoder refuses a line
(``repairs_lone_surrogates``: Codex, Claude) read every damaged line exactly as before, when
each line went through ``tolerant_line`` first.

Two halves: the premise (msgspec refuses every line that ``tolerant_line`` would change for a
lone surrogate, whether the escape stands in a decoded field, a skipped one, a ``Raw`` one
or a key), and the result (damaged real sessions parse to the same messages and summary as
the projector fed tolerant lines).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hangar.agents.base import AgentStore, SessionSource
from hangar.agents.homes import AgentHome
from hangar.agents.registry import store_classes
from hangar.tolerant_lines import tolerant_line, without_lone_surrogates
from hangar.transcripts.engine import TranscriptEngine
from hangar.transcripts.tail import TurnTables

from .homes import FIXTURE_HOMES, claude_home, codex_home

REPAIRING = {"codex": "codex", "claude": "claude"}
"""Runtime → fixture folder of the agents whose projectors repair on refusal."""
DAMAGE = [
    b"\\ud83d",  # a lone high surrogate (a cut-off emoji)
    b"\\ude00",  # a lone low surrogate
    b"\\uD83D",  # upper-case hex
    b"\\ud83d\\ud83d\\ude00",  # a high one, then a pair
    b"\\ude00\\ud83d",  # a pair the wrong way round
    b"\\ud83dx",  # a high one followed by text
    b"\\\\\\ud83d",  # an escaped backslash, then a lone surrogate
    b"\\\\ud83d",  # an escaped backslash and text: no surrogate at all
    b"\\ud83d\\ude00",  # a valid pair
    b"\xff",  # not UTF-8
    b"\xe2\x82",  # a cut-off UTF-8 sequence
    b"\xed\xa0\x80",  # a surrogate encoded as UTF-8 (invalid)
]
MARK = "QQDAMAGEQQ"


class _Skips(msgspec.Struct):
    other: int = 0


_DECODERS: list[msgspec.json.Decoder[Any]] = [
    msgspec.json.Decoder(),
    msgspec.json.Decoder(_Skips),  # the damaged field is skipped
    msgspec.json.Decoder(dict[str, msgspec.Raw]),  # kept raw
    msgspec.json.Decoder(dict[str, list[msgspec.Raw]]),  # kept raw, nested
]

ESCAPE_TEXT = st.text(alphabet='\\ud89abcDCAB0"x', max_size=24)


@settings(max_examples=400, deadline=None)
@given(body=ESCAPE_TEXT, as_key=st.booleans())
def test_msgspec_refuses_every_line_a_surrogate_repair_would_change(
    body: str, as_key: bool
) -> None:
    """The premise of decoding first: a line msgspec accepts (in any field, whatever the
    target type does with it) has no lone surrogate escape to repair."""
    text = f'"{body}"'
    docs = [
        f'{{{text}: 1, "other": 2}}' if as_key else f'{{"a": {text}, "other": 2}}',
        f'{{"a": [{text}], "other": 2}}',
        f'{{"a": [{{"b": {{"c": {text}}}}}], "other": 2}}',
    ]
    for doc in docs:
        line = doc.encode()
        repaired = without_lone_surrogates(line)
        changed = repaired != line
        # A repaired line has nothing left to repair: a projector feeding it refeeds once.
        assert without_lone_surrogates(repaired) == repaired
        for decoder in _DECODERS:
            try:
                decoder.decode(line)
            except msgspec.DecodeError:
                continue
            assert not changed, (line, decoder)


def test_every_repairing_projector_is_covered(public_fixtures: Path, tmp_path: Path) -> None:
    """A projector that starts repairing on refusal needs its agent in the tests below."""
    builders = {**FIXTURE_HOMES, "claude": claude_home, "codex": codex_home}
    for runtime, cls in store_classes().items():
        if not cls.append_only or runtime not in builders:
            continue
        agent = cls(builders[runtime](public_fixtures, tmp_path / runtime))
        for found in agent.discover():
            if agent.reads_incrementally(found):
                projector = agent.new_projector(found)
                assert not projector.repairs_lone_surrogates or runtime in REPAIRING, runtime
                break


def _strings(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], bool]]:
    """Where a string stands in a decoded line: (path, is a key)."""
    found: list[tuple[tuple[Any, ...], bool]] = []
    if isinstance(value, str):
        found.append((path, False))
    elif isinstance(value, dict):
        for key, item in value.items():
            found.append(((*path, key), True))
            found.extend(_strings(item, (*path, key)))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            found.extend(_strings(item, (*path, position)))
    return found


def _marked(value: Any, where: tuple[Any, ...], is_key: bool, rng: random.Random) -> Any:
    """``value`` with :data:`MARK` put into the string (or key) at ``where``."""
    if not where:
        cut = rng.randint(0, len(value))
        return value[:cut] + MARK + value[cut:]
    head, rest = where[0], where[1:]
    if isinstance(value, list):
        return [_marked(v, rest, is_key, rng) if i == head else v for i, v in enumerate(value)]
    if is_key and not rest:
        cut = rng.randint(0, len(head))
        return {(head[:cut] + MARK + head[cut:] if k == head else k): v for k, v in value.items()}
    return {k: _marked(v, rest, is_key, rng) if k == head else v for k, v in value.items()}


def damaged(data: bytes, damage: bytes, rng: random.Random, share: float) -> bytes:
    """``data`` with ``damage`` written into one random string (value or key) of about
    ``share`` of its lines; other lines stay byte for byte."""
    out = []
    for raw in data.split(b"\n"):
        try:
            value = json.loads(raw)
        except ValueError:
            out.append(raw)
            continue
        spots = _strings(value)
        if not spots or rng.random() > share:
            out.append(raw)
            continue
        where, is_key = rng.choice(spots)
        marked = _marked(value, where, is_key, rng)
        try:
            text = json.dumps(marked, ensure_ascii=False).encode()
        except UnicodeEncodeError:  # damaged before: keep its lone surrogates escaped
            text = json.dumps(marked).encode()
        out.append(text.replace(MARK.encode(), damage))
    return b"\n".join(out)


def tolerant_parse(agent: AgentStore, source: SessionSource) -> tuple[Any, Any]:
    """What the projector makes of the file when every line is a ``tolerant_line`` (how
    the engine read before: the reference)."""
    projector = agent.new_projector(source)
    for raw in source.path.read_bytes().split(b"\n")[:-1]:
        if raw[:1] == b"{" or raw.strip():
            projector.feed(tolerant_line(raw))
    return msgspec.to_builtins(projector.take().messages), projector.summary()


def fixture_files(public_fixtures: Path, folder: str) -> list[Path]:
    files = sorted((public_fixtures / folder).glob("*/*.jsonl"))
    assert len(files) >= 5, folder
    return files


@pytest.mark.parametrize("damage", DAMAGE, ids=lambda d: d.decode("latin-1"))
@pytest.mark.parametrize("runtime", sorted(REPAIRING))
def test_damaged_sessions_read_as_with_tolerant_lines(
    runtime: str, damage: bytes, public_fixtures: Path, tmp_path: Path
) -> None:
    """Every fixture session of the agent, a third of its lines damaged in one string each:
    the engine's read (full and tail-first) equals the tolerant-lines reference."""
    rng = random.Random(f"{runtime}{damage!r}")
    agent = store_classes()[runtime](AgentHome(runtime, tmp_path, None))
    changed = tail_first = 0
    for number, original in enumerate(fixture_files(public_fixtures, REPAIRING[runtime])):
        data = damaged(original.read_bytes(), damage, rng, share=0.35)
        changed += data != original.read_bytes()
        path = tmp_path / f"s{number}" / "session.jsonl"
        path.parent.mkdir()
        path.write_bytes(data)
        source = SessionSource(runtime, f"s{number}", path, {})
        messages, summary = tolerant_parse(agent, source)
        tables = TurnTables()
        full = TranscriptEngine(tables=tables).read("k", agent, source)
        assert msgspec.to_builtins(full.messages) == messages, path
        assert full.summary == summary, path
        tail = TranscriptEngine(tables=tables).read("k", agent, source, tail_messages=1)
        assert msgspec.to_builtins(tail.messages) == messages[tail.base :], path
        tail_first += tail.base > 0
    assert changed and tail_first, (changed, tail_first)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    picks=st.lists(
        st.tuples(st.sampled_from(DAMAGE), st.integers(0, 10_000)), min_size=1, max_size=6
    ),
    runtime=st.sampled_from(sorted(REPAIRING)),
)
def test_any_mix_of_damage_reads_as_with_tolerant_lines(
    picks: list[tuple[bytes, int]], runtime: str, public_fixtures: Path, tmp_path_factory: Any
) -> None:
    """Several kinds of damage in one file, anywhere: the same equality."""
    files = fixture_files(public_fixtures, REPAIRING[runtime])
    folder = tmp_path_factory.mktemp(runtime)
    path = folder / "session.jsonl"
    data = files[picks[0][1] % len(files)].read_bytes()
    for damage, seed in picks:
        data = damaged(data, damage, random.Random(seed), share=0.2)
    path.write_bytes(data)
    agent = store_classes()[runtime](AgentHome(runtime, folder, None))
    source = SessionSource(runtime, "s", path, {})
    messages, summary = tolerant_parse(agent, source)
    full = TranscriptEngine().read("k", agent, source)
    assert msgspec.to_builtins(full.messages) == messages
    assert full.summary == summary
