"""JSON lines that a strict decoder can read without losing their text.

Agents write JSONL that is not always valid UTF-8 JSON: a byte that is not UTF-8, or a lone
surrogate escape (``\\ud83d`` without its pair: what a cut-off emoji becomes). A strict
decoder (msgspec) refuses such a line, and the message it held would silently lose its text.
:func:`tolerant_line` is applied where lines are read (the transcript engine and discovery's
head/tail reads), for every JSONL agent alike.
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


def tolerant_line(line: bytes) -> bytes:
    """``line`` as valid UTF-8 JSON text: invalid bytes and lone surrogate escapes become
    U+FFFD; a line that is already valid is returned as is (the common, fast case)."""
    if not line.isascii():
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            line = line.decode("utf-8", "replace").encode("utf-8")
    if _SUSPECT.search(line) is not None:
        line = _SURROGATE.sub(_keep_pairs, line)
    return line
