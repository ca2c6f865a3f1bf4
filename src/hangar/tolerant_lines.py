"""JSON lines that a strict decoder can read without losing their text.

Agents write JSONL that is not always valid UTF-8 JSON: a byte that is not UTF-8, or a lone
surrogate escape (``\\ud83d`` without its pair: what a cut-off emoji becomes). A strict
decoder (msgspec) refuses such a line, and the message it held would silently lose its text.
:func:`tolerant_line` is applied where lines are read (the transcript engine and discovery's
head/tail reads), for every JSONL agent alike, in two steps:

* :func:`valid_utf8` — a byte that is not UTF-8 becomes U+FFFD (cheap: most lines are ASCII);
* :func:`without_lone_surrogates` — a lone surrogate escape becomes ``\\ufffd``. This step
  scans every byte for an escape, a third of the cost of reading a line, so a parser whose
  decoder refuses every line holding a lone surrogate escape may instead call
  :func:`repaired_after_refusal` when its decoder refuses one (see
  :attr:`hangar.agents.base.TranscriptProjector.repairs_lone_surrogates`). msgspec refuses
  such an escape wherever it stands, in a field it decodes, a field it skips, or a ``Raw``
  field; it does *not* check UTF-8 in skipped or ``Raw`` fields, so :func:`valid_utf8`
  always runs first.
"""

from __future__ import annotations

import re

# A \uXXXX surrogate escape not preceded by an odd number of backslashes: a high+low pair
# (kept), or a lone half (replaced).
_SURROGATE = re.compile(
    rb"(?<!\\)((?:\\\\)*+)(\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    rb"|\\u[dD][89a-fA-F][0-9a-fA-F]{2})"
)
_SUSPECT = re.compile(rb"\\u[dD][89a-fA-F]")
"""Any surrogate escape at all: a regex scan, several times faster than ``in`` for a short
needle on lines full of backslashes (escaped newlines in tool output)."""


def _keep_pairs(match: re.Match[bytes]) -> bytes:
    escape = match.group(2)
    return match.group(1) + (escape if len(escape) == 12 else b"\\ufffd")


def valid_utf8(line: bytes) -> bytes:
    """``line`` with every byte sequence that is not UTF-8 replaced by U+FFFD; a valid line
    is returned as is."""
    if not line.isascii():
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            return line.decode("utf-8", "replace").encode("utf-8")
    return line


def without_lone_surrogates(line: bytes) -> bytes:
    """``line`` with every lone surrogate escape replaced by ``\\ufffd`` (pairs kept); a line
    without one is returned as is."""
    if _SUSPECT.search(line) is None:
        return line
    return _SURROGATE.sub(_keep_pairs, line)


def tolerant_line(line: bytes) -> bytes:
    """``line`` as valid UTF-8 JSON text: invalid bytes and lone surrogate escapes become
    U+FFFD; a line that is already valid is returned as is (the common, fast case)."""
    return without_lone_surrogates(valid_utf8(line))


def repaired_after_refusal(line: bytes) -> bytes | None:
    """For a parser whose strict decoder just refused ``line`` (already :func:`valid_utf8`):
    the line with its lone surrogate escapes replaced, to decode again, or ``None`` when it
    has none (the refusal stands). Together with a decoder that refuses every such escape
    this gives exactly what decoding :func:`tolerant_line` of every line gives."""
    repaired = without_lone_surrogates(line)
    return None if repaired == line else repaired
